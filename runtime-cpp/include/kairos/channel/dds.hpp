// RMMC channels on Eclipse Cyclone DDS (C API, ddsc), for Linux nodes. Header-only, so that the
// runtime library does not depend on Cyclone: a generated node that runs channels includes it and
// links CycloneDDS::ddsc itself.
//
// One domain participant per node; a writer per channel the node publishes and a reader per
// channel it reads, with QoS from the model (docs/channels.md): reliability, history keep-last
// `depth`, lifespan = validity. Writing happens on the channel hub's sender thread (the hub hands
// each drained sample to the channel's forwarder, which converts it to idlc's C type in a
// preallocated store and writes it). Reading happens where it keeps every reader history with
// one producer: a channel the node also publishes is read on the hub's sender (DDS's listener
// only sets the hub's event, and the hub then polls the link), since that thread hands the
// node's own samples to the same readers; a channel only other nodes publish is read in DDS's
// listener itself, on the DDS thread that received the sample, saving a thread wake-up per
// sample (Cyclone never runs two listener calls of one reader at once). Either way the samples
// are taken as DDS loans them, converted into the readers' histories and the loans returned.
// DDS allocates on its own threads and on the hub's; a lane never calls into DDS.
#pragma once

#include <dds/dds.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>

#include <kairos/bounded.hpp>
#include <kairos/channel/channel.hpp>
#include <kairos/kal/error.hpp>
#include <kairos/kal/event.hpp>
#include <kairos/kal/global_time.hpp>
#include <kairos/kal/thread.hpp>

namespace kairos::channel::dds {

/// The store of a value that points into nothing.
struct NoStore {};

/// The store of a bounded sequence: its elements in idlc's C type, and their own stores.
template <typename CElement, std::size_t Bound, typename ElementStore>
struct SequenceStore {
  std::array<CElement, Bound> items{};
  std::array<ElementStore, Bound> stores{};
};

/// Copies a bounded string into idlc's `char[N + 1]`, terminated.
template <std::size_t N, std::size_t M>
void copy_string(const BoundedString<N>& from, char (&to)[M]) noexcept {
  static_assert(M == N + 1, "idlc maps string<N> to char[N + 1]");
  std::memcpy(to, from.data(), from.size());
  to[from.size()] = '\0';
}

/// Reads idlc's `char[N + 1]` into a bounded string; false if it is not terminated within it.
template <std::size_t N, std::size_t M>
bool read_string(const char (&from)[M], BoundedString<N>& to) noexcept {
  static_assert(M == N + 1, "idlc maps string<N> to char[N + 1]");
  const void* end = std::memchr(from, '\0', M);
  if (end == nullptr) {
    return false;
  }
  return to.assign(
      std::string_view(from, static_cast<std::size_t>(static_cast<const char*>(end) - from)));
}

/// The QoS of a channel's writers and readers (docs/channels.md, "On DDS").
inline dds_qos_t* qos_of(const ChannelSpec& spec) noexcept {
  dds_qos_t* qos = dds_create_qos();
  if (spec.reliability == Reliability::kReliable) {
    // A reliable writer may block when readers' histories are full; a short bound keeps the
    // hub's sender from waiting long on a slow reader (it runs below every lane anyway).
    dds_qset_reliability(qos, DDS_RELIABILITY_RELIABLE, DDS_MSECS(10));
  } else {
    dds_qset_reliability(qos, DDS_RELIABILITY_BEST_EFFORT, 0);
  }
  dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, spec.depth < 1 ? 1 : spec.depth);
  dds_qset_durability(qos, DDS_DURABILITY_VOLATILE);
  if (spec.validity.count() > 0) {
    dds_qset_lifespan(qos, spec.validity.count());
  }
  return qos;
}

/// The DDS source timestamp of a sample published at `publish_ns` (the node's global time): the
/// wall clock at its publication, so that its age on arrival, and DDS's lifespan, count from the
/// method that published it rather than from the hub's write.
inline dds_time_t source_timestamp(std::int64_t publish_ns) noexcept {
  const std::int64_t waited = kal::to_nanoseconds(kal::global_now()) - publish_ns;
  return dds_time() - (waited > 0 ? waited : 0);
}

/// How a received sample reaches its node's channel: converts the C sample and delivers it.
/// `publish_ns` is the publish time in the node's global time; false when the sample is
/// malformed (a length beyond its bound).
using Receive = bool (*)(void* context, const void* c_sample, std::int64_t publish_ns,
                         std::int64_t now_ns) noexcept;

/// Which thread takes a reader's samples from DDS and hands them to the node's readers.
enum class Delivery : std::uint8_t {
  /// The channel hub's sender, when it polls the link: for a channel the node publishes too,
  /// whose readers the hub feeds with the node's own samples.
  kOnHub,
  /// DDS's listener, on the DDS thread that received the sample: for a channel only other nodes
  /// publish, so the DDS thread is its readers' one producer.
  kInListener,
};

/// The node's DDS side: its participant, writers and readers, and the thread that takes samples.
class DdsLink {
 public:
  static constexpr std::size_t kMaxReaders = 16;

  struct Options {
    const char* node = "";
    /// The CPU of DDS's threads (-1: any): the node's hub CPU, so that a sample DDS hands to a
    /// reader waits for the lanes there only, as the holistic analysis assumes of the hub.
    int cpu = -1;
    /// The band of DDS's threads: the hub's, below every lane and above every time-shared
    /// process of the machine, as the holistic analysis assumes of the hub.
    kal::PriorityBand band = kal::kLowestBand;
  };

  explicit DdsLink(const Options& options) noexcept : options_(options) {}
  DdsLink(const DdsLink&) = delete;
  DdsLink& operator=(const DdsLink&) = delete;
  ~DdsLink() { stop(); }

  /// Runs `set_up()` (which creates the participant, the writers and the readers, and returns
  /// whether it could) as the hub's threads run: at the hub's band, on its CPU. DDS starts its
  /// threads (receive, delivery, timed events) with the scheduling and CPUs of the thread that
  /// creates its domain, so they run there too, below every lane and above every time-shared
  /// process; left time-shared, a sample's delivery waited for every ordinary process on the
  /// reader's CPU (7.6 ms behind three busy loops, against a bound of 450 us). And no time-shared
  /// process preempts set-up while it holds DDS's locks, which a DDS thread delivering a sample
  /// that arrives meanwhile waits for (24 ms behind three busy loops).
  template <typename SetUp>
  bool as_hub(SetUp&& set_up) noexcept {
    struct Call {
      SetUp* set_up;
      bool done;
    } call{&set_up, false};
    kal::run_as_band(
        options_.band, options_.cpu,
        [](void* context) noexcept {
          auto& made = *static_cast<Call*>(context);
          made.done = (*made.set_up)();
        },
        &call);
    return call.done;
  }

  /// Creates the node's participant in the default domain (CYCLONEDDS_URI chooses it and the
  /// network interfaces), within as_hub. Samples the node itself wrote are not delivered back to
  /// it: its hub has handed them to its readers already.
  kal::Status create_participant() noexcept {
    dds_qos_t* qos = dds_create_qos();
    dds_qset_ignorelocal(qos, DDS_IGNORELOCAL_PARTICIPANT);
    participant_ = dds_create_participant(DDS_DOMAIN_DEFAULT, qos, nullptr);
    dds_delete_qos(qos);
    if (participant_ < 0) {
      report("cannot create a DDS participant", participant_);
      return kal::Status::kPlatformError;
    }
    return kal::Status::kOk;
  }

  /// A writer of `spec`'s topic of type `descriptor`; negative (and reported) on failure.
  dds_entity_t add_writer(const ChannelSpec& spec,
                          const dds_topic_descriptor_t& descriptor) noexcept {
    const dds_entity_t topic = topic_of(spec, descriptor);
    if (topic < 0) {
      return topic;
    }
    dds_qos_t* qos = qos_of(spec);
    const dds_entity_t writer = dds_create_writer(participant_, topic, qos, nullptr);
    dds_delete_qos(qos);
    if (writer < 0) {
      report("cannot create a DDS writer", writer);
    }
    return writer;
  }

  /// Where the link wakes the hub when a reader has data (before add_reader).
  void wake_on_data(kal::Event& wake) noexcept { wake_ = &wake; }

  /// A reader of `spec`'s topic whose samples go to `receive(context, ...)`, on the thread
  /// `delivery` names.
  kal::Status add_reader(const ChannelSpec& spec, const dds_topic_descriptor_t& descriptor,
                         Receive receive, void* context, Delivery delivery) noexcept {
    if (reader_count_ == readers_.size()) {
      return kal::Status::kCapacityExceeded;
    }
    const dds_entity_t topic = topic_of(spec, descriptor);
    if (topic < 0) {
      return kal::Status::kPlatformError;
    }
    // Filled before the reader exists: its listener may run as soon as it does.
    ReaderEntry& entry = readers_[reader_count_];
    entry = {0, receive, context, delivery, this};
    dds_qos_t* qos = qos_of(spec);
    dds_listener_t* listener = nullptr;
    if (delivery == Delivery::kInListener) {
      listener = dds_create_listener(&entry);
      dds_lset_data_available(listener, &take_in_listener);
    } else {
      listener = dds_create_listener(wake_);
      dds_lset_data_available(listener, &wake_hub);
    }
    const dds_entity_t reader = dds_create_reader(participant_, topic, qos, listener);
    dds_delete_listener(listener);
    dds_delete_qos(qos);
    if (reader < 0) {
      report("cannot create a DDS reader", reader);
      return kal::Status::kPlatformError;
    }
    entry.reader = reader;
    ++reader_count_;
    return kal::Status::kOk;
  }

  /// Takes what every reader delivered on the hub has and hands it to the node's channels; the
  /// hub's sender calls it (ChannelHub::set_poll) each time it wakes.
  static void poll(void* self, std::int64_t /*now_ns*/) noexcept {
    auto& link = *static_cast<DdsLink*>(self);
    for (std::size_t r = 0; r < link.reader_count_; ++r) {
      const ReaderEntry& entry = link.readers_[r];
      if (entry.delivery == Delivery::kOnHub) {
        link.take(entry.reader, entry);
      }
    }
  }

  /// Deletes the participant with everything in it (idempotent). The hub must have stopped.
  /// Deletes the participant with its writers and readers, as the hub's threads run (as_hub):
  /// a DDS thread delivering a sample that arrives meanwhile waits for the locks the deletion
  /// holds, which a time-shared process must not stretch (19 ms behind three busy loops).
  void stop() noexcept {
    if (participant_ > 0) {
      as_hub([this]() noexcept {
        dds_delete(participant_);
        return true;
      });
      participant_ = 0;
    }
  }

  /// Samples received and delivered, and those refused as malformed.
  std::uint64_t received() const noexcept { return received_.load(std::memory_order_relaxed); }
  std::uint64_t malformed() const noexcept { return malformed_.load(std::memory_order_relaxed); }

 private:
  struct ReaderEntry {
    dds_entity_t reader = 0;
    Receive receive = nullptr;
    void* context = nullptr;
    Delivery delivery = Delivery::kOnHub;
    DdsLink* link = nullptr;
  };

  static constexpr std::size_t kTakeAtOnce = 16;

  dds_entity_t topic_of(const ChannelSpec& spec,
                        const dds_topic_descriptor_t& descriptor) noexcept {
    std::array<char, 128> name{};
    const std::size_t length =
        spec.topic.size() < name.size() - 1 ? spec.topic.size() : name.size() - 1;
    std::memcpy(name.data(), spec.topic.data(), length);
    const dds_entity_t topic =
        dds_create_topic(participant_, &descriptor, name.data(), nullptr, nullptr);
    if (topic < 0) {
      report("cannot create a DDS topic", topic);
    }
    return topic;
  }

  /// DDS's listener of a reader delivered on the hub, on a DDS thread: only wakes the hub.
  static void wake_hub(dds_entity_t /*reader*/, void* wake) noexcept {
    if (wake != nullptr) {
      static_cast<kal::Event*>(wake)->set();
    }
  }

  /// DDS's listener of a reader delivered in it, on a DDS thread: takes the samples itself.
  /// `reader` is the one DDS names, since the entry's handle is stored only once the reader is
  /// created, after which its listener may already have run.
  static void take_in_listener(dds_entity_t reader, void* entry) noexcept {
    const auto& reading = *static_cast<const ReaderEntry*>(entry);
    reading.link->take(reader, reading);
  }

  /// Takes what `reader` has, bounded per call, as loans returned at once.
  void take(dds_entity_t reader, const ReaderEntry& entry) noexcept {
    for (int round = 0; round < 64; ++round) {
      std::array<void*, kTakeAtOnce> samples{};
      std::array<dds_sample_info_t, kTakeAtOnce> infos{};
      const dds_return_t taken =
          dds_take(reader, samples.data(), infos.data(), kTakeAtOnce, kTakeAtOnce);
      if (taken <= 0) {
        return;
      }
      const std::int64_t now = kal::to_nanoseconds(kal::global_now());
      const dds_time_t wall = dds_time();
      for (dds_return_t s = 0; s < taken; ++s) {
        const auto i = static_cast<std::size_t>(s);
        if (!infos[i].valid_data) {
          continue;
        }
        // The sample's age by the writer's source timestamp (wall clock on both sides), put on
        // this node's global time: its validity is judged by the same age DDS's lifespan uses.
        const std::int64_t age = wall - infos[i].source_timestamp;
        const bool ok = entry.receive(entry.context, samples[i], now - (age > 0 ? age : 0), now);
        (ok ? received_ : malformed_).fetch_add(1, std::memory_order_relaxed);
      }
      dds_return_loan(reader, samples.data(), taken);
      if (static_cast<std::size_t>(taken) < kTakeAtOnce) {
        return;
      }
    }
  }

  void report(const char* what, dds_return_t code) const noexcept {
    std::array<char, 160> message{};
    std::snprintf(message.data(), message.size(), "channels: %s (%s)", what, dds_strretcode(code));
    kal::report(kal::Severity::kError, options_.node, message.data());
  }

  Options options_;
  dds_entity_t participant_ = 0;
  kal::Event* wake_ = nullptr;
  std::array<ReaderEntry, kMaxReaders> readers_{};
  std::size_t reader_count_ = 0;
  std::atomic<std::uint64_t> received_{0};
  std::atomic<std::uint64_t> malformed_{0};
};

}  // namespace kairos::channel::dds
