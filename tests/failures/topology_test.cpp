// Topology: unit counts, blast radius of every component class, hierarchy consistency, errors.
#include "sim/cluster/topology.h"

#include <gtest/gtest.h>

namespace ntpsim::sim {
namespace {

ClusterConfig nvl72_like() {
  ClusterConfig c;
  c.domains = 4;
  c.spare_domains = 1;
  c.gpus_per_domain = 72;
  c.gpus_per_node = 4;
  c.domains_per_pod = 2;
  return c;
}

TEST(TopologyTest, CountsUnitsOfEveryClass) {
  auto t = Topology::build(nvl72_like());
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->gpus(), 360);
  EXPECT_EQ(t->domains(), 5);
  EXPECT_EQ(t->job_domains(), 4);
  EXPECT_EQ(t->spare_domains(), 1);
  EXPECT_EQ(t->units(Component::kGpu), 360);
  EXPECT_EQ(t->units(Component::kNode), 90);
  EXPECT_EQ(t->units(Component::kDomain), 5);
  EXPECT_EQ(t->units(Component::kPod), 3);  // 2 + 2 + a partial pod holding the spare domain
}

TEST(TopologyTest, BlastRadiusOfEachClass) {
  auto t = Topology::build(nvl72_like());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->blast_radius(Component::kGpu, 17), (GpuRange{17, 1}));
  EXPECT_EQ(t->blast_radius(Component::kNode, 5), (GpuRange{20, 4}));
  EXPECT_EQ(t->blast_radius(Component::kNode, 89), (GpuRange{356, 4}));
  EXPECT_EQ(t->blast_radius(Component::kDomain, 1), (GpuRange{72, 72}));
  EXPECT_EQ(t->blast_radius(Component::kDomain, 4), (GpuRange{288, 72}));  // the spare domain
  EXPECT_EQ(t->blast_radius(Component::kPod, 0), (GpuRange{0, 144}));
  EXPECT_EQ(t->blast_radius(Component::kPod, 2), (GpuRange{288, 72}));
}

TEST(TopologyTest, HierarchyNestsEveryRadius) {
  auto t = Topology::build(nvl72_like());
  ASSERT_TRUE(t.ok());
  for (int64_t g = 0; g < t->gpus(); ++g) {
    const int d = t->domain_of(g);
    EXPECT_EQ(d, g / 72);
    EXPECT_TRUE(t->blast_radius(Component::kNode, t->node_of(g)).contains(g));
    EXPECT_TRUE(t->blast_radius(Component::kDomain, d).contains(g));
    EXPECT_TRUE(t->blast_radius(Component::kPod, t->pod_of_domain(d)).contains(g));
  }
  // The radii of one class tile the GPUs exactly, in order.
  for (const Component c : {Component::kNode, Component::kDomain, Component::kPod}) {
    int64_t next = 0;
    for (int64_t u = 0; u < t->units(c); ++u) {
      const GpuRange r = t->blast_radius(c, u);
      EXPECT_EQ(r.first, next) << static_cast<int>(c) << " " << u;
      next = r.end();
    }
    EXPECT_EQ(next, t->gpus());
  }
}

TEST(TopologyTest, MissingLevelsCollapse) {
  ClusterConfig c;
  c.domains = 3;
  c.gpus_per_domain = 8;
  auto t = Topology::build(c);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->units(Component::kNode), 24);  // no node level: each GPU its own node
  EXPECT_EQ(t->blast_radius(Component::kNode, 9), (GpuRange{9, 1}));
  EXPECT_EQ(t->units(Component::kPod), 1);    // no pod level: one pod of everything
  EXPECT_EQ(t->blast_radius(Component::kPod, 0), (GpuRange{0, 24}));
}

TEST(TopologyTest, RejectsBadConfigurations) {
  ClusterConfig c = nvl72_like();
  c.gpus_per_node = 5;
  auto r = Topology::build(c);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cluster.gpus_per_node"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().exit_code, ExitCode::kBadInput);

  c = nvl72_like();
  c.domains = 0;
  r = Topology::build(c);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cluster.domains"), std::string::npos);

  c = nvl72_like();
  c.spare_domains = -1;
  EXPECT_FALSE(Topology::build(c).ok());
  c = nvl72_like();
  c.gpus_per_domain = 0;
  EXPECT_FALSE(Topology::build(c).ok());
}

}  // namespace
}  // namespace ntpsim::sim
