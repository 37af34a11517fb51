#include "sim/cluster/topology.h"

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "models/base/check.h"

namespace ntpsim::sim {
namespace {

// The component graph: one vertex per pod, domain, node and GPU; edges point from a component to
// the components that depend on it. A tree, rooted at the pods. Compressed sparse rows: built in
// one pass from the edges, which come sorted by source, with two allocations however many GPUs
// (an adjacency list allocates per vertex, which the planner paid once per candidate cluster).
using Graph = boost::compressed_sparse_row_graph<boost::directedS>;
using Vertex = Graph::vertex_descriptor;

// Per-vertex blast radius accumulated bottom-up: the lowest GPU index below it and the count.
struct Span {
  int64_t first = std::numeric_limits<int64_t>::max();
  int64_t count = 0;
  int64_t last = -1;
};

// Merges each finished vertex's span into its parent's, so one DFS yields every blast radius.
class RadiusVisitor : public boost::default_dfs_visitor {
 public:
  RadiusVisitor(std::vector<Span>& spans, std::vector<Vertex>& parent)
      : spans_(&spans), parent_(&parent) {}
  void tree_edge(Graph::edge_descriptor e, const Graph& g) const {
    (*parent_)[boost::target(e, g)] = boost::source(e, g);
  }
  void finish_vertex(Vertex v, const Graph&) const {
    const Vertex p = (*parent_)[v];
    if (p == v) return;
    Span& ps = (*spans_)[p];
    const Span& s = (*spans_)[v];
    ps.first = std::min(ps.first, s.first);
    ps.last = std::max(ps.last, s.last);
    ps.count += s.count;
  }

 private:
  std::vector<Span>* spans_;
  std::vector<Vertex>* parent_;
};

Error bad_cluster(const std::string& field, const std::string& what) {
  return Error::bad_input("cluster." + field + ": " + what);
}

}  // namespace

Result<Topology> Topology::build(const ClusterConfig& c) {
  if (c.domains <= 0) return bad_cluster("domains", "must be at least 1, got " + std::to_string(c.domains));
  if (c.gpus_per_domain <= 0) {
    return bad_cluster("gpus_per_domain", "must be at least 1, got " + std::to_string(c.gpus_per_domain));
  }
  if (c.spare_domains < 0) {
    return bad_cluster("spare_domains", "must be >= 0, got " + std::to_string(c.spare_domains));
  }
  if (c.gpus_per_node < 0 || (c.gpus_per_node > 0 && c.gpus_per_domain % c.gpus_per_node != 0)) {
    return bad_cluster("gpus_per_node", "must be 0 (no node level) or divide gpus_per_domain (" +
                                            std::to_string(c.gpus_per_domain) + "), got " +
                                            std::to_string(c.gpus_per_node));
  }
  if (c.domains_per_pod < 0) {
    return bad_cluster("domains_per_pod", "must be >= 0, got " + std::to_string(c.domains_per_pod));
  }
  const int64_t total_domains = c.total_domains();
  // GpuRange counts are int32 (a pod or the whole cluster as one pod must fit), and the graph
  // holds one vertex per GPU: refuse sizes no real cluster has.
  constexpr int64_t kMaxGpus = int64_t{1} << 30;
  if (total_domains > std::numeric_limits<int>::max() || c.total_gpus() > kMaxGpus) {
    return bad_cluster("domains", "cluster too large: " + std::to_string(c.total_gpus()) +
                                      " GPUs (limit " + std::to_string(kMaxGpus) + ")");
  }

  Topology t;
  t.domains_ = static_cast<int>(total_domains);
  t.job_domains_ = c.domains;
  t.gpus_per_domain_ = c.gpus_per_domain;
  t.gpus_per_node_ = c.gpus_per_node > 0 ? c.gpus_per_node : 1;
  t.domains_per_pod_ = c.domains_per_pod > 0 ? c.domains_per_pod : t.domains_;
  t.gpus_ = c.total_gpus();
  const int64_t nodes = t.gpus_ / t.gpus_per_node_;
  const int64_t pods = (t.domains_ + t.domains_per_pod_ - 1) / t.domains_per_pod_;
  t.units_ = {t.gpus_, nodes, t.domains_, pods};

  // Vertex numbering: pods, then domains, then nodes, then GPUs.
  const int64_t domain0 = pods;
  const int64_t node0 = domain0 + t.domains_;
  const int64_t gpu0 = node0 + nodes;
  const int64_t vertices = gpu0 + t.gpus_;
  // Edges in order of their source (pods, then domains, then nodes), as the graph requires.
  std::vector<std::pair<Vertex, Vertex>> edges;
  edges.reserve(static_cast<size_t>(vertices - pods));
  const int64_t nodes_per_domain = t.gpus_per_domain_ / t.gpus_per_node_;
  for (int64_t d = 0; d < t.domains_; ++d) {
    edges.emplace_back(static_cast<Vertex>(d / t.domains_per_pod_),
                       static_cast<Vertex>(domain0 + d));
  }
  for (int64_t n = 0; n < nodes; ++n) {
    edges.emplace_back(static_cast<Vertex>(domain0 + n / nodes_per_domain),
                       static_cast<Vertex>(node0 + n));
  }
  for (int64_t gpu = 0; gpu < t.gpus_; ++gpu) {
    edges.emplace_back(static_cast<Vertex>(node0 + gpu / t.gpus_per_node_),
                       static_cast<Vertex>(gpu0 + gpu));
  }
  const Graph g(boost::edges_are_sorted, edges.begin(), edges.end(), static_cast<size_t>(vertices));
  edges = {};

  std::vector<Span> spans(static_cast<size_t>(vertices));
  for (int64_t gpu = 0; gpu < t.gpus_; ++gpu) spans[static_cast<size_t>(gpu0 + gpu)] = {gpu, 1, gpu};
  std::vector<Vertex> parent(static_cast<size_t>(vertices));
  for (size_t v = 0; v < parent.size(); ++v) parent[v] = v;
  std::vector<boost::default_color_type> color(static_cast<size_t>(vertices), boost::white_color);
  auto color_map = boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g));
  RadiusVisitor visitor(spans, parent);
  for (int64_t p = 0; p < pods; ++p) {
    boost::depth_first_visit(g, static_cast<Vertex>(p), visitor, color_map);
  }

  auto take = [&](int64_t first_vertex, int64_t count, std::vector<GpuRange>& out) {
    out.resize(static_cast<size_t>(count));
    for (int64_t u = 0; u < count; ++u) {
      const Span& s = spans[static_cast<size_t>(first_vertex + u)];
      // The numbering promise: every component's GPUs are one contiguous run.
      NTPSIM_CHECK(s.count > 0 && s.last - s.first + 1 == s.count);
      out[static_cast<size_t>(u)] = GpuRange{s.first, static_cast<int32_t>(s.count)};
    }
  };
  take(0, pods, t.pod_radius_);
  take(domain0, t.domains_, t.domain_radius_);
  take(node0, nodes, t.node_radius_);
  return t;
}

GpuRange Topology::blast_radius(Component c, int64_t unit) const {
  NTPSIM_CHECK(unit >= 0 && unit < units(c));
  const auto u = static_cast<size_t>(unit);
  switch (c) {
    case Component::kGpu: return GpuRange{unit, 1};
    case Component::kNode: return node_radius_[u];
    case Component::kDomain: return domain_radius_[u];
    case Component::kPod: return pod_radius_[u];
  }
  NTPSIM_CHECK_MSG(false, "unknown component class");
  return {};
}

int Topology::domain_of(int64_t gpu) const {
  NTPSIM_CHECK(gpu >= 0 && gpu < gpus_);
  return static_cast<int>(gpu / gpus_per_domain_);
}

int64_t Topology::node_of(int64_t gpu) const {
  NTPSIM_CHECK(gpu >= 0 && gpu < gpus_);
  return gpu / gpus_per_node_;
}

int Topology::pod_of_domain(int domain) const {
  NTPSIM_CHECK(domain >= 0 && domain < domains_);
  return domain / domains_per_pod_;
}

}  // namespace ntpsim::sim
