// Plays periodic task sets on the engine over the simulated platform, one after another in one
// process, each for one hyperperiod, with every method taking exactly its WCET; prints what
// happened to each set. The schedulability property test (tests/e2e) feeds it the sets and the
// priority bands `kairos check` analysed, and compares the outcome with the verdicts.
//
// Input (a file, or standard input), one set per line; `#` starts a comment line:
//   <name> <rms|edf|np-edf|mlf|muf|rms+mlf> <task> ...
// where each task is one of
//   <period_ns>:<wcet_ns>:<deadline_ns>:<band>[:<soft>:<importance>]
//       an SpM released at 0, then every period; its start window is (t, t + deadline); hard
//       unless <soft> is 1; <importance> breaks MUF ties
//   spm:<period_ns>:<wcet_ns>:<open_ns>:<close_ns>:<deadline_ns>:<band>:<segments>
//       [:<wait_ns>[:<soft>:<importance>]]
//       an SpM with start window (t + open, t + close), using the segments of mask <segments>;
//       with <wait_ns>, a method that calls a blocking gate of that deadline: each activation
//       first waits for a reply (not processor time, its lane and segments held) for a time
//       drawn from [0, wait_ns] (every other one the whole wait_ns), then computes its WCET
//   seg:<ceiling>
//       the next ODS segment (bit 0, 1, ... of the masks), locked with that priority ceiling
//   svm:<gct_ns>:<wcet_ns>:<band>:<admission_slot_ns>:<conflicts>:<segments>:<arrival_ns>,...
//       a service method (conflicts: mask of SpM rows, in input order) and the instants at which
//       a client at the top band requests it
//   channels:<publishers>:<feed_period_ns>:<latency_ns>
//       the set's node has a channel hub (below every lane, on its processor) and two RMMC
//       channels to a peer node (processor 1) over a simulated link of that latency: the tasks of
//       mask <publishers> publish one sample on the outbound channel as each activation ends
//       (after its computation, which their bodies then do themselves), and the peer's hub
//       hands it to a reader there; the peer publishes on the inbound channel every
//       <feed_period_ns>, from an instant of its own, and the set's hub hands each sample to a
//       reader of the set's node. Each sample carries the release of the activation (or the
//       feed's instant) that published it.
// Sets with service methods run for two hyperperiods (the requests fall in the first), others
// for one.
//
// Output, one line per set, tasks in input order:
//   <name> hyperperiod_ns=<h> records=<n> deadline_misses=<n> window_misses=<n> overruns=<n>
//     late_reports=<n> trace_drops=<n> missed=<m0>,<m1>,... worst_response_ns=<r0>,<r1>,...
// for sets with channels,
//     outbound_published=<n> outbound_delivered=<n> outbound_lost=<n> worst_outbound_ns=<o0>,...
//     inbound_published=<n> inbound_delivered=<n> inbound_lost=<n> worst_inbound_ns=<w>
// (the longest from a sample's release to its delivery to the reader on the other node, per
// task, -1 for a task that delivered none; lost: dropped from a full history before it was sent
// or taken), and, for sets with service methods,
//     requests=<n> served=<s0>,... worst_service_ns=<w0>,... waited=<k0>,... gct_misses=<n>
//     bcc_overlaps=<n>
// where `late_reports` counts deadline misses reported after the deadline passed (the watchdog
// must see a method still running at its deadline), `missed` counts each task's activations
// that started late or finished late, and the worst response is the latest finish after
// release of a started activation (-1: none ran). For service methods: requests served, the
// longest time from a request's arrival to its completion, how many started later than they
// arrived, and how many times a service method ran while a conflicting SpM had started and not
// finished (BCC forbids it: always 0).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <kairos/channel/channel.hpp>
#include <kairos/channel/hub.hpp>
#include <kairos/engine.hpp>
#include <kairos/kal/execution.hpp>
#include <kairos/kal/sim_network.hpp>
#include <kairos/kal/thread.hpp>

namespace {

using kairos::kal::Duration;

struct Task {
  std::int64_t period_ns = 0;
  std::int64_t wcet_ns = 0;
  std::int64_t open_ns = 0;
  std::int64_t close_ns = 0;
  std::int64_t deadline_ns = 0;
  int band = 0;
  std::uint64_t segments = 0;
  kairos::Criticality criticality = kairos::Criticality::kHard;
  std::uint8_t importance = 0;
  std::int64_t wait_ns = 0;  ///< the deadline of the blocking gate it calls (0: none)
};

struct Service {
  std::int64_t gct_ns = 0;
  std::int64_t wcet_ns = 0;
  int band = 0;
  std::int64_t slot_ns = 0;
  std::uint64_t conflicts = 0;
  std::uint64_t segments = 0;
  std::vector<std::int64_t> arrivals_ns;
};

/// The set's channels to a peer node (a `channels:` word).
struct Channels {
  std::uint64_t publishers = 0;  ///< mask of the tasks that publish on the outbound channel
  std::int64_t feed_period_ns = 0;
  std::int64_t latency_ns = 0;
};

struct TaskSet {
  std::string name;
  kairos::Strategy strategy = kairos::Strategy::kRms;
  std::vector<Task> tasks;
  std::vector<int> ceilings;  ///< one per segment
  std::vector<Service> services;
  bool has_channels = false;
  Channels channels;
};

/// A channel sample: the index of the task that published it (the feed: 0) in the top byte, the
/// global time of the release of its activation in nanoseconds below.
using Payload = std::uint64_t;
constexpr int kPublisherShift = 56;
constexpr Payload kReleaseMask = (Payload{1} << kPublisherShift) - 1;
/// Samples each publisher's ring and each reader's history keeps.
constexpr std::size_t kChannelDepth = 4;
constexpr std::size_t kMaxPublishers = 16;
using OutboundChannel = kairos::channel::NodeChannel<Payload, kChannelDepth, kMaxPublishers, 0>;
using FeedChannel = kairos::channel::NodeChannel<Payload, kChannelDepth, 1, 0>;
constexpr std::uint16_t kOutboundId = 0;
constexpr std::uint16_t kInboundId = 1;

/// Clients ask for service methods from the top band, above every task.
constexpr kairos::kal::PriorityBand kClientBand = kairos::kal::kHighestBand - 1;

/// What the engine reported about one task's misses.
struct MissWatch {
  Duration deadline{};
  /// Deadline misses reported after the deadline: the watchdog should have seen them at it.
  std::uint64_t late_reports = 0;
  /// A method that calls a blocking gate: the longest it waits for the reply, and the state of
  /// the generator that draws each activation's wait (seeded per task: every run is the same).
  std::int64_t wait_ns = 0;
  std::uint64_t draws = 0;
  /// In a set with channels the body computes the WCET itself (the engine models none), so that
  /// a publisher publishes as its activation ends, the latest a method can.
  Duration compute{};
  OutboundChannel::PublisherType* publisher = nullptr;
  std::uint8_t index = 0;
  const kairos::Engine* engine = nullptr;
  Duration open{};
  Duration period{};
  /// Bodies run so far: the next one is that activation's (its release epoch + open + k period),
  /// as long as none was dropped (its task then missed, and its deliveries are not compared).
  std::uint64_t activations = 0;
};

void check_report(void* servant, const kairos::MissReport& miss) noexcept {
  auto& watch = *static_cast<MissWatch*>(servant);
  if (miss.kind == kairos::MissKind::kCompletionDeadline &&
      miss.observed != miss.release + watch.deadline) {
    ++watch.late_reports;
  }
}

struct Outcome {
  std::vector<std::uint64_t> records;
  std::vector<std::uint64_t> missed;
  std::vector<std::int64_t> worst_response_ns;
  /// Every started execution of each SpM, [start, finish].
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> executions;
  std::vector<std::uint64_t> served;
  std::vector<std::int64_t> worst_service_ns;
  std::vector<std::uint64_t> waited;
  /// Every service execution: row, start, finish.
  std::vector<std::tuple<std::size_t, std::int64_t, std::int64_t>> service_executions;
};

bool parse_strategy(const std::string& word, kairos::Strategy& strategy) {
  static constexpr struct {
    const char* name;
    kairos::Strategy strategy;
  } kStrategies[] = {{"rms", kairos::Strategy::kRms},      {"edf", kairos::Strategy::kEdf},
                     {"np-edf", kairos::Strategy::kNpEdf}, {"mlf", kairos::Strategy::kMlf},
                     {"muf", kairos::Strategy::kMuf},      {"rms+mlf", kairos::Strategy::kRmsMlf}};
  for (const auto& known : kStrategies) {
    if (word == known.name) {
      strategy = known.strategy;
      return true;
    }
  }
  return false;
}

bool valid_band(int band) {
  return band >= kairos::kal::kLowestBand && band < kClientBand;
}

/// Splits `word` at colons into integers; false unless it has exactly `count` of them.
bool parse_fields(const std::string& word, std::size_t count, std::vector<std::int64_t>& fields) {
  fields.clear();
  std::istringstream in(word);
  std::string field;
  while (std::getline(in, field, ':')) {
    char* end = nullptr;
    fields.push_back(std::strtoll(field.c_str(), &end, 10));
    if (field.empty() || *end != '\0') {
      return false;
    }
  }
  return fields.size() == count && (word.empty() || word.back() != ':');
}

bool parse_task(const std::string& word, Task& task) {
  std::vector<std::int64_t> f;
  if (word.rfind("spm:", 0) == 0) {
    const std::string fields = word.substr(4);
    if (!parse_fields(fields, 7, f) && !parse_fields(fields, 8, f) &&
        !parse_fields(fields, 10, f)) {
      return false;
    }
    task = Task{
        f[0], f[1], f[2], f[3], f[4], static_cast<int>(f[5]), static_cast<std::uint64_t>(f[6])};
    if (f.size() >= 8) {
      if (f[7] < 0) {
        return false;
      }
      task.wait_ns = f[7];
    }
    if (f.size() == 10) {
      if ((f[8] != 0 && f[8] != 1) || f[9] < 0 || f[9] > 255) {
        return false;
      }
      task.criticality = f[8] == 1 ? kairos::Criticality::kSoft : kairos::Criticality::kHard;
      task.importance = static_cast<std::uint8_t>(f[9]);
    }
  } else {
    if (!parse_fields(word, 4, f) && !parse_fields(word, 6, f)) {
      return false;
    }
    task = Task{f[0], f[1], 0, f[2], f[2], static_cast<int>(f[3]), 0};
    if (f.size() == 6) {
      if ((f[4] != 0 && f[4] != 1) || f[5] < 0 || f[5] > 255) {
        return false;
      }
      task.criticality = f[4] == 1 ? kairos::Criticality::kSoft : kairos::Criticality::kHard;
      task.importance = static_cast<std::uint8_t>(f[5]);
    }
  }
  return task.period_ns > 0 && task.wcet_ns > 0 && task.open_ns >= 0 &&
         task.open_ns <= task.close_ns && task.close_ns <= task.deadline_ns &&
         task.deadline_ns - task.open_ns >= task.wcet_ns && task.deadline_ns <= task.period_ns &&
         valid_band(task.band);
}

bool parse_service(const std::string& word, Service& service) {
  const std::size_t arrivals = word.rfind(':');
  std::vector<std::int64_t> f;
  if (arrivals == std::string::npos || !parse_fields(word.substr(4, arrivals - 4), 6, f)) {
    return false;
  }
  service = Service{f[0],
                    f[1],
                    static_cast<int>(f[2]),
                    f[3],
                    static_cast<std::uint64_t>(f[4]),
                    static_cast<std::uint64_t>(f[5]),
                    {}};
  std::istringstream in(word.substr(arrivals + 1));
  std::string instant;
  while (std::getline(in, instant, ',')) {
    char* end = nullptr;
    service.arrivals_ns.push_back(std::strtoll(instant.c_str(), &end, 10));
    if (instant.empty() || *end != '\0' || service.arrivals_ns.back() < 0) {
      return false;
    }
  }
  return service.gct_ns >= service.wcet_ns && service.wcet_ns > 0 && service.slot_ns > 0 &&
         valid_band(service.band) && !service.arrivals_ns.empty();
}

/// Parses one input line; false (with `error` set) when it is not a task set.
bool parse_set(const std::string& line, TaskSet& set, std::string& error) {
  std::istringstream words(line);
  std::string strategy;
  if (!(words >> set.name >> strategy) || !parse_strategy(strategy, set.strategy)) {
    error = "expected <name> <strategy> <tasks...>";
    return false;
  }
  std::string word;
  while (words >> word) {
    if (word.rfind("seg:", 0) == 0) {
      std::vector<std::int64_t> ceiling;
      if (!parse_fields(word.substr(4), 1, ceiling) || !valid_band(static_cast<int>(ceiling[0]))) {
        error = "bad segment '" + word + "' (expected seg:<ceiling band>)";
        return false;
      }
      set.ceilings.push_back(static_cast<int>(ceiling[0]));
    } else if (word.rfind("svm:", 0) == 0) {
      Service service;
      if (!parse_service(word, service)) {
        error = "bad service method '" + word +
                "' (expected svm:gct:wcet:band:slot:conflicts:segments:arrival,...)";
        return false;
      }
      set.services.push_back(service);
    } else if (word.rfind("channels:", 0) == 0) {
      std::vector<std::int64_t> f;
      if (set.has_channels || !parse_fields(word.substr(9), 3, f) || f[0] <= 0 || f[1] <= 0 ||
          f[2] < 0) {
        error = "bad channels '" + word +
                "' (expected one channels:<publishers>:<feed_period_ns>:<latency_ns>)";
        return false;
      }
      set.has_channels = true;
      set.channels = Channels{static_cast<std::uint64_t>(f[0]), f[1], f[2]};
    } else {
      Task task;
      if (!parse_task(word, task)) {
        error = "bad task '" + word +
                "' (expected period:wcet:deadline:band or "
                "spm:period:wcet:open:close:deadline:band:segments, in ns)";
        return false;
      }
      set.tasks.push_back(task);
    }
  }
  std::size_t requests = 0;
  for (const Service& service : set.services) {
    requests += service.arrivals_ns.size();
  }
  if (set.tasks.empty() || set.tasks.size() + requests > kairos::Engine::kMaxSpms) {
    error = "a set needs 1 to " + std::to_string(kairos::Engine::kMaxSpms) +
            " tasks and requests together";
    return false;
  }
  if (set.has_channels && (!set.services.empty() || set.tasks.size() > kMaxPublishers ||
                           (set.channels.publishers >> set.tasks.size()) != 0)) {
    error = "a set with channels has no service methods and at most " +
            std::to_string(kMaxPublishers) + " tasks, and publishes from its own";
    return false;
  }
  if (set.services.size() > kairos::Engine::kMaxSvms ||
      set.ceilings.size() > kairos::Engine::kMaxSegments) {
    error = "too many service methods or segments for the engine";
    return false;
  }
  return true;
}

void count_record(void* context, const kairos::SpmEntry&, const kairos::ActivationRecord& r) {
  auto& outcome = *static_cast<Outcome*>(context);
  if (r.spm >= outcome.records.size()) {
    return;  // a client
  }
  ++outcome.records[r.spm];
  if (r.ran()) {
    outcome.executions[r.spm].emplace_back(r.start_ns, r.finish_ns);
  }
  if (r.outcome != kairos::ActivationOutcome::kMet) {
    ++outcome.missed[r.spm];
  }
  if (r.ran()) {
    outcome.worst_response_ns[r.spm] =
        std::max(outcome.worst_response_ns[r.spm], r.finish_ns - r.release_ns);
  }
}

void count_service(void* context, const kairos::SvmEntry&, const kairos::ActivationRecord& r) {
  auto& outcome = *static_cast<Outcome*>(context);
  ++outcome.served[r.spm];
  outcome.worst_service_ns[r.spm] =
      std::max(outcome.worst_service_ns[r.spm], r.finish_ns - r.release_ns);
  if (r.start_ns > r.release_ns) {
    ++outcome.waited[r.spm];
  }
  outcome.service_executions.emplace_back(r.spm, r.start_ns, r.finish_ns);
}

/// Methods do nothing themselves: the engine models their WCET on the virtual processor.
void no_work(void*) {}

/// The body of a method that calls a blocking gate: it waits for the reply as a real one does,
/// blocked (here: asleep in virtual time), for the whole gate's deadline every other
/// activation and for a time drawn from [0, deadline] otherwise. The engine then computes the
/// row's WCET.
void wait_for_reply(void* servant) {
  auto& watch = *static_cast<MissWatch*>(servant);
  watch.draws = watch.draws * 6364136223846793005ULL + 1442695040888963407ULL;
  const auto draw = static_cast<std::int64_t>(watch.draws >> 33);
  const std::int64_t wait =
      (watch.draws >> 32 & 1U) != 0 ? watch.wait_ns : draw % (watch.wait_ns + 1);
  kairos::kal::sleep_until(kairos::kal::MonotonicClock::now() + Duration{wait});
}
void no_service(void*, void*) {}

template <typename T>
void print_list(const char* key, const std::vector<T>& values) {
  std::printf(" %s=", key);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::printf("%s%lld", i == 0 ? "" : ",", static_cast<long long>(values[i]));
  }
}

/// The global time of `t`, as a sample carries it.
Payload stamp(std::uint8_t publisher, kairos::kal::TimePoint t) {
  const auto global_ns = kairos::kal::to_nanoseconds(t + kairos::kal::global_offset_at(t));
  return Payload{publisher} << kPublisherShift | (static_cast<Payload>(global_ns) & kReleaseMask);
}

/// The body of a method in a set with channels: it waits for its gate's reply if it calls one,
/// computes its WCET, then, if it publishes, publishes a sample stamped with its release.
void run_with_channels(void* servant) {
  auto& watch = *static_cast<MissWatch*>(servant);
  const kairos::kal::TimePoint release =
      watch.engine->epoch() + watch.open +
      watch.period * static_cast<std::int64_t>(watch.activations++);
  if (watch.wait_ns > 0) {
    wait_for_reply(servant);
  }
  kairos::kal::busy_for(watch.compute);
  if (watch.publisher != nullptr) {
    watch.publisher->publish(stamp(watch.index, release));
  }
}

/// A node's reader of one channel that notes, for each publisher, the longest from a sample's
/// release to its delivery here: the hub hands it the channel's datagrams through this port,
/// which passes them on to the channel itself and takes them from its reader at once.
class DeliveryRecorder {
 public:
  DeliveryRecorder(const kairos::channel::ChannelSpec& spec, std::size_t publishers)
      : channel_{spec}, worst_ns_(publishers, -1) {}

  bool attach(kairos::kal::Event& wake) { return channel_.attach(reader_, wake); }

  kairos::channel::ChannelPort port() noexcept {
    kairos::channel::ChannelPort port = channel_.port();
    port.channel = this;
    port.drain = &drain;
    port.receive = &receive;
    return port;
  }

  const std::vector<std::int64_t>& worst_ns() const { return worst_ns_; }
  kairos::channel::ChannelCounts counts() const noexcept { return channel_.counts(); }

 private:
  using Channel = kairos::channel::NodeChannel<Payload, kChannelDepth, 0, 1>;

  static std::size_t drain(void* self, kairos::channel::SampleSink& sink,
                           std::int64_t now_ns) noexcept {
    return static_cast<DeliveryRecorder*>(self)->channel_.drain(sink, now_ns);
  }

  static bool receive(void* self, std::span<const std::byte> body, bool little_endian,
                      std::int64_t publish_ns, std::int64_t now_ns) noexcept {
    auto& recorder = *static_cast<DeliveryRecorder*>(self);
    if (!recorder.channel_.receive(body, little_endian, publish_ns, now_ns)) {
      return false;
    }
    kairos::channel::Sample<Payload> sample;
    while (recorder.reader_.take(sample)) {
      const std::size_t publisher = sample.value >> kPublisherShift;
      const auto release_ns = static_cast<std::int64_t>(sample.value & kReleaseMask);
      if (publisher < recorder.worst_ns_.size()) {
        recorder.worst_ns_[publisher] =
            std::max(recorder.worst_ns_[publisher], now_ns - release_ns);
      }
    }
    return true;
  }

  Channel channel_;
  Channel::ReaderType reader_;
  std::vector<std::int64_t> worst_ns_;
};

kairos::channel::ChannelSpec channel_spec(const char* name, std::uint16_t id) {
  kairos::channel::ChannelSpec spec;
  spec.name = name;
  spec.topic = name;
  spec.id = id;
  spec.reliability = kairos::channel::Reliability::kBestEffort;
  spec.depth = kChannelDepth;
  return spec;
}

/// The channels of a set with channels: the set's node's hub (processor 0, below every lane)
/// sends the outbound channel its tasks publish on and hands the inbound one to a reader; the
/// peer node's hub (processor 1) hands the outbound channel to a reader and sends the inbound one,
/// which the feed, a thread of the peer, publishes on every feed period.
class ChannelNodes {
 public:
  ChannelNodes(const TaskSet& set, std::vector<MissWatch>& watches)
      : channels_(set.channels),
        outbound_reader_(outbound_spec_, set.tasks.size()),
        inbound_reader_(inbound_spec_, 1) {
    // Endpoints of their own: the simulated network keeps one listener per endpoint.
    static int sets = 0;
    ++sets;
    std::snprintf(node_endpoint_.data(), node_endpoint_.size(), "udp:10.%d.%d.1:7400",
                  sets / 250 % 250, sets % 250);
    std::snprintf(peer_endpoint_.data(), peer_endpoint_.size(), "udp:10.%d.%d.2:7400",
                  sets / 250 % 250, sets % 250);
    for (std::size_t i = 0; i < watches.size(); ++i) {
      if ((channels_.publishers >> i & 1U) != 0) {
        watches[i].publisher = &publishers_[i];
      }
    }
  }
  ChannelNodes(const ChannelNodes&) = delete;
  ChannelNodes& operator=(const ChannelNodes&) = delete;
  ~ChannelNodes() { stop(); }

  /// Wires both nodes and starts their hubs and the feed, which publishes until `until` from now.
  bool start(Duration until) {
    using kairos::kal::Status;
    for (std::size_t i = 0; i < kMaxPublishers; ++i) {
      if ((channels_.publishers >> i & 1U) != 0 && !outbound_.attach(publishers_[i], hub_.wake())) {
        return false;
      }
    }
    feed_start_ = kairos::kal::MonotonicClock::now();
    feeds_ = until.count() / channels_.feed_period_ns + 1;
    return kairos::kal::provision_processors(2) == Status::kOk &&
           kairos::kal::sim::set_network({Duration{channels_.latency_ns}, Duration::zero()}, 1) ==
               Status::kOk &&
           feed_.attach(feed_publisher_, peer_hub_.wake()) &&
           outbound_reader_.attach(peer_hub_.wake()) && inbound_reader_.attach(hub_.wake()) &&
           hub_.add_channel(outbound_.port()) == Status::kOk &&
           hub_.add_channel(inbound_reader_.port()) == Status::kOk &&
           peer_hub_.add_channel(outbound_reader_.port()) == Status::kOk &&
           peer_hub_.add_channel(feed_.port()) == Status::kOk &&
           hub_.listen(node_endpoint_.data()) == Status::kOk &&
           peer_hub_.listen(peer_endpoint_.data()) == Status::kOk &&
           hub_.add_subscriber(kOutboundId, peer_endpoint_.data()) == Status::kOk &&
           peer_hub_.add_subscriber(kInboundId, node_endpoint_.data()) == Status::kOk &&
           peer_hub_.start() == Status::kOk && hub_.start() == Status::kOk &&
           feeder_.start(
               {"feed", static_cast<kairos::kal::PriorityBand>(kairos::kal::kLowestBand + 1), 1},
               &feed_main, this) == Status::kOk;
  }

  /// Waits for the feed's end and for every sample on the link, then stops both hubs.
  void stop() {
    if (feeder_.joinable()) {
      feeder_.join();
      kairos::kal::sleep_until(kairos::kal::MonotonicClock::now() +
                               2 * Duration{channels_.latency_ns} + std::chrono::milliseconds{1});
    }
    hub_.stop();
    peer_hub_.stop();
  }

  void print() const {
    print_direction("outbound", outbound_.counts(), outbound_reader_);
    print_direction("inbound", feed_.counts(), inbound_reader_);
  }

 private:
  /// One channel's counts: what its publishers published, what reached the reader on the other
  /// node, what either side lost, and the worst time from release to delivery per publisher.
  static void print_direction(const char* direction, const kairos::channel::ChannelCounts& sent,
                              const DeliveryRecorder& reader) {
    const kairos::channel::ChannelCounts got = reader.counts();
    std::printf(" %s_published=%llu %s_delivered=%llu %s_lost=%llu", direction,
                static_cast<unsigned long long>(sent.published), direction,
                static_cast<unsigned long long>(got.delivered), direction,
                static_cast<unsigned long long>(sent.dropped_overflow + got.dropped_overflow));
    const std::string worst = std::string("worst_") + direction + "_ns";
    print_list(worst.c_str(), reader.worst_ns());
  }

  static void feed_main(void* self) noexcept {
    auto& nodes = *static_cast<ChannelNodes*>(self);
    for (std::int64_t k = 0; k < nodes.feeds_; ++k) {
      const kairos::kal::TimePoint at =
          nodes.feed_start_ + Duration{k * nodes.channels_.feed_period_ns};
      kairos::kal::sleep_until(at);
      nodes.feed_publisher_.publish(stamp(0, at));
    }
  }

  Channels channels_;
  const kairos::channel::ChannelSpec outbound_spec_ = channel_spec("outbound", kOutboundId);
  const kairos::channel::ChannelSpec inbound_spec_ = channel_spec("inbound", kInboundId);
  OutboundChannel outbound_{outbound_spec_};
  std::array<OutboundChannel::PublisherType, kMaxPublishers> publishers_{};
  DeliveryRecorder outbound_reader_;
  FeedChannel feed_{inbound_spec_};
  FeedChannel::PublisherType feed_publisher_;
  DeliveryRecorder inbound_reader_;
  kairos::channel::ChannelHub hub_{{.node = "set", .cpu = 0}};
  kairos::channel::ChannelHub peer_hub_{{.node = "peer", .cpu = 1}};
  std::array<char, 32> node_endpoint_{};
  std::array<char, 32> peer_endpoint_{};
  kairos::kal::Thread feeder_;
  kairos::kal::TimePoint feed_start_{};
  std::int64_t feeds_ = 0;
};

/// A client: one request of one service method, at the instant of its one-shot SpM.
struct Client {
  kairos::Engine* engine = nullptr;
  std::size_t svm = 0;
  bool refused = false;
};

void ask(void* servant) {
  auto& client = *static_cast<Client*>(servant);
  client.refused = client.engine->request(client.svm, &client) != kairos::kal::Status::kOk;
}

/// Executions of a service method that overlap an execution of an SpM it conflicts with.
std::uint64_t bcc_overlaps(const TaskSet& set, const Outcome& outcome) {
  std::uint64_t overlaps = 0;
  for (const auto& [svm, start, finish] : outcome.service_executions) {
    for (std::size_t spm = 0; spm < set.tasks.size(); ++spm) {
      if ((set.services[svm].conflicts >> spm & 1U) == 0) {
        continue;
      }
      for (const auto& [spm_start, spm_finish] : outcome.executions[spm]) {
        overlaps += static_cast<std::uint64_t>(start < spm_finish && spm_start < finish);
      }
    }
  }
  return overlaps;
}

int play(const TaskSet& set, Duration dispatch_ahead, bool release_table) {
  std::int64_t hyperperiod_ns = 1;
  for (const Task& task : set.tasks) {
    hyperperiod_ns = std::lcm(hyperperiod_ns, task.period_ns);
  }
  std::vector<std::string> names;
  std::vector<kairos::SpmEntry> entries;
  std::vector<kairos::SegmentEntry> segments;
  std::vector<kairos::SvmEntry> services;
  std::vector<Client> clients;
  std::size_t requests = 0;
  for (const Service& service : set.services) {
    requests += service.arrivals_ns.size();
  }
  // Entries are referenced by the engine: no reallocation once added.
  names.reserve(set.tasks.size() + set.services.size());
  entries.reserve(set.tasks.size() + requests);
  segments.reserve(set.ceilings.size());
  services.reserve(set.services.size());
  clients.reserve(requests);
  // As a generated node with `os sim` configures it: WCETs modelled, the platform's dispatch.
  // (In a set with channels the bodies compute their WCETs, so that a publisher publishes as
  // its activation ends.)
  kairos::EngineOptions options{set.strategy, -1, /*model_execution_time=*/!set.has_channels};
  options.dispatch_ahead = dispatch_ahead;
  auto engine = std::make_unique<kairos::Engine>(options);
  for (const int ceiling : set.ceilings) {
    segments.push_back(kairos::SegmentEntry{set.name, "segment", ceiling});
    if (engine->add_segment(segments.back()) != kairos::kal::Status::kOk) {
      std::fprintf(stderr, "%s: the engine refused a segment\n", set.name.c_str());
      return 1;
    }
  }
  std::vector<MissWatch> watches(set.tasks.size());
  for (std::size_t i = 0; i < set.tasks.size(); ++i) {
    const Task& task = set.tasks[i];
    watches[i].deadline = Duration{task.deadline_ns};
    watches[i].wait_ns = task.wait_ns;
    watches[i].draws = i + 1;
    if (set.has_channels) {
      watches[i].compute = Duration{task.wcet_ns};
      watches[i].index = static_cast<std::uint8_t>(i);
      watches[i].engine = engine.get();
      watches[i].open = Duration{task.open_ns};
      watches[i].period = Duration{task.period_ns};
    }
    names.push_back("t" + std::to_string(i));
    kairos::SpmEntry entry{set.name,
                           names.back(),
                           "taskset",
                           Duration::zero(),
                           kairos::kForever,
                           Duration{task.period_ns},
                           Duration{task.open_ns},
                           Duration{task.close_ns},
                           watches[i].deadline,
                           Duration{task.wcet_ns},
                           task.criticality,
                           task.band,
                           task.importance,
                           task.segments};
    entry.reply_wait = Duration{task.wait_ns};
    entries.push_back(entry);
    const kairos::MethodInvoker body = set.has_channels   ? &run_with_channels
                                       : task.wait_ns > 0 ? &wait_for_reply
                                                          : &no_work;
    if (engine->add_spm(entries.back(), &watches[i], body, &check_report) !=
        kairos::kal::Status::kOk) {
      std::fprintf(stderr, "%s: the engine refused task %zu\n", set.name.c_str(), i);
      return 1;
    }
  }
  // Clients: one-shot SpMs of no modelled time at the top band, each asking once.
  for (std::size_t svm = 0; svm < set.services.size(); ++svm) {
    for (const std::int64_t arrival : set.services[svm].arrivals_ns) {
      clients.push_back(Client{engine.get(), svm, false});
      entries.push_back(kairos::SpmEntry{
          set.name, "client", "taskset", Duration{arrival}, Duration{arrival}, Duration::zero(),
          Duration::zero(), Duration::zero(), Duration{hyperperiod_ns}, Duration::zero(),
          kairos::Criticality::kSoft, kClientBand});
      if (engine->add_spm(entries.back(), &clients.back(), &ask, nullptr) !=
          kairos::kal::Status::kOk) {
        std::fprintf(stderr, "%s: the engine refused a client\n", set.name.c_str());
        return 1;
      }
    }
  }
  for (std::size_t svm = 0; svm < set.services.size(); ++svm) {
    const Service& service = set.services[svm];
    names.push_back("q" + std::to_string(svm));
    services.push_back(kairos::SvmEntry{set.name, names.back(), "taskset", Duration{service.gct_ns},
                                        Duration{service.wcet_ns}, kairos::Criticality::kHard,
                                        service.band, 0, service.conflicts,
                                        Duration{service.slot_ns}, service.segments});
    if (engine->add_svm(services.back(), nullptr, &no_service, nullptr) !=
        kairos::kal::Status::kOk) {
      std::fprintf(stderr, "%s: the engine refused service method %zu\n", set.name.c_str(), svm);
      return 1;
    }
  }
  // As a generated node does: the trigger walks the release table of one hyperperiod (every
  // window opening, in order) instead of deriving releases from each row. (Sets with clients
  // have one-shot rows, which a table of one hyperperiod cannot hold: they derive releases.)
  std::vector<kairos::ReleaseEntry> table;
  if (release_table && clients.empty()) {
    for (std::size_t i = 0; i < set.tasks.size(); ++i) {
      for (std::int64_t open = set.tasks[i].open_ns; open < hyperperiod_ns;
           open += set.tasks[i].period_ns) {
        table.push_back(kairos::ReleaseEntry{Duration{open}, static_cast<std::uint16_t>(i)});
      }
    }
    std::sort(table.begin(), table.end(), [](const auto& a, const auto& b) {
      return a.open != b.open ? a.open < b.open : a.spm < b.spm;
    });
    if (engine->set_release_table(table, Duration{hyperperiod_ns}) != kairos::kal::Status::kOk) {
      std::fprintf(stderr, "%s: the engine refused the release table\n", set.name.c_str());
      return 1;
    }
  }
  const std::size_t n = set.tasks.size();
  const std::size_t m = set.services.size();
  Outcome outcome{std::vector<std::uint64_t>(n),
                  std::vector<std::uint64_t>(n),
                  std::vector<std::int64_t>(n, -1),
                  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>>(n),
                  std::vector<std::uint64_t>(m),
                  std::vector<std::int64_t>(m, -1),
                  std::vector<std::uint64_t>(m),
                  {}};
  engine->observe_services(&count_service, &outcome);
  const std::int64_t run_ns = m == 0 ? hyperperiod_ns : 2 * hyperperiod_ns;
  std::unique_ptr<ChannelNodes> channels;
  if (set.has_channels) {
    channels = std::make_unique<ChannelNodes>(set, watches);
    // The feed goes on past the run's start-up and its end.
    if (!channels->start(Duration{run_ns} + std::chrono::milliseconds{20})) {
      std::fprintf(stderr, "%s: the channels did not start\n", set.name.c_str());
      return 1;
    }
  }
  if (const auto status = engine->run_for(Duration{run_ns}, &count_record, &outcome);
      status != kairos::kal::Status::kOk) {
    std::fprintf(stderr, "%s: the engine did not run: %s\n", set.name.c_str(),
                 kairos::kal::to_string(status));
    return 1;
  }
  const kairos::EngineCounters counters = engine->counters();
  if (channels != nullptr) {
    channels->stop();
  }
  std::uint64_t records = 0;
  for (const std::uint64_t count : outcome.records) {
    records += count;
  }
  std::uint64_t late_reports = 0;
  for (const MissWatch& watch : watches) {
    late_reports += watch.late_reports;
  }
  std::printf(
      "%s hyperperiod_ns=%lld records=%llu deadline_misses=%llu window_misses=%llu overruns=%llu "
      "late_reports=%llu trace_drops=%llu",
      set.name.c_str(), static_cast<long long>(hyperperiod_ns),
      static_cast<unsigned long long>(records),
      static_cast<unsigned long long>(counters.deadline_misses),
      static_cast<unsigned long long>(counters.start_window_misses),
      static_cast<unsigned long long>(counters.overruns),
      static_cast<unsigned long long>(late_reports),
      static_cast<unsigned long long>(counters.trace_drops));
  print_list("missed", outcome.missed);
  print_list("worst_response_ns", outcome.worst_response_ns);
  if (channels != nullptr) {
    channels->print();
  }
  if (m > 0) {
    std::uint64_t refused = 0;
    for (const Client& client : clients) {
      refused += static_cast<std::uint64_t>(client.refused);
    }
    std::printf(" requests=%llu refused=%llu", static_cast<unsigned long long>(requests),
                static_cast<unsigned long long>(refused));
    print_list("served", outcome.served);
    print_list("worst_service_ns", outcome.worst_service_ns);
    print_list("waited", outcome.waited);
    std::printf(" gct_misses=%llu bcc_overlaps=%llu",
                static_cast<unsigned long long>(counters.gct_misses),
                static_cast<unsigned long long>(bcc_overlaps(set, outcome)));
  }
  std::printf("\n");
  return 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: kairos_taskset_runner [--dispatch-ahead-ns N] [--release-table] [FILE]\n"
               "  plays each task set of FILE (or standard input) for one hyperperiod\n"
               "  --release-table: the trigger walks a release table, as generated nodes do\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Duration dispatch_ahead{-1};  // the platform's default
  bool release_table = false;
  const char* path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--dispatch-ahead-ns") == 0 && i + 1 < argc) {
      char* end = nullptr;
      dispatch_ahead = Duration{std::strtoll(argv[++i], &end, 10)};
      if (end == argv[i] || *end != '\0') {
        return usage();
      }
    } else if (std::strcmp(argv[i], "--release-table") == 0) {
      release_table = true;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return usage();
    } else if (path == nullptr) {
      path = argv[i];
    } else {
      return usage();
    }
  }
  std::ifstream file;
  if (path != nullptr) {
    file.open(path);
    if (!file) {
      std::fprintf(stderr, "kairos_taskset_runner: cannot read %s\n", path);
      return 2;
    }
  }
  std::istream& input = path != nullptr ? file : std::cin;
  std::string line;
  for (int number = 1; std::getline(input, line); ++number) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    TaskSet set;
    std::string error;
    if (!parse_set(line, set, error)) {
      std::fprintf(stderr, "%s:%d: %s\n", path != nullptr ? path : "<stdin>", number,
                   error.c_str());
      return 2;
    }
    if (const int failed = play(set, dispatch_ahead, release_table); failed != 0) {
      return failed;
    }
    std::fflush(stdout);
  }
  return 0;
}
