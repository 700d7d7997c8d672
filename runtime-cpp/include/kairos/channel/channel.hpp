// RMMC channels (real-time multicast, after the TMO papers): bounded fan-out publish/subscribe
// with a validity deadline per sample. A method that `publishes` a channel puts the sample into a
// preallocated history of its own and returns: no allocation, no lock, no wait on the network.
// The node's channel hub (kairos/channel/hub.hpp), threads below every lane, drains those
// histories, hands samples to the node's readers and sends them to the nodes that read them. A
// method that `reads` a channel takes samples from a history of its own that keeps the last
// `depth`; a sample older than its validity when it is delivered or read is dropped and counted.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <kairos/cdr.hpp>
#include <kairos/kal/clock.hpp>
#include <kairos/kal/event.hpp>
#include <kairos/kal/global_time.hpp>
#include <kairos/method_timings.hpp>

namespace kairos::channel {

/// Whether a channel's samples are resent until every reader has them, or sent once.
enum class Reliability : std::uint8_t { kReliable, kBestEffort };

/// One channel as the model declares it: a row of the generated `kChannels` table.
struct ChannelSpec {
  std::string_view name;   ///< as the eac declares it: `track`
  std::string_view topic;  ///< the system-wide name: the DDS topic, `avionics_track`
  /// The channel's index in its system: the same on every node generated from one model, so
  /// that a sample on the wire names its channel by it.
  std::uint16_t id = 0;
  Reliability reliability = Reliability::kReliable;
  std::uint16_t depth = 1;    ///< samples each reader keeps (keep-last)
  kal::Duration validity{0};  ///< how long a sample stays valid after it is published; 0: always
  std::uint8_t fan_out = 1;   ///< the most TMO instances that read it, in the whole system
  std::string_view source;    ///< model file and line of its declaration
  /// The oldest a sample from another node may be when this node's hub delivers it to a reader,
  /// by the holistic analysis (the `deliver` hop of its chains, from the publisher's release);
  /// negative where none was analysed (no chain brings the channel to a reader here).
  kal::Duration delivery_bound{-1};
};

/// What happened to a channel's samples on one node, counted as it happens (relaxed atomics:
/// any thread may count, and a reader of the counters wants totals, not an order).
struct ChannelCounters {
  /// Samples the node's methods published (accepted into their rings).
  std::atomic<std::uint64_t> published{0};
  /// Samples handed to a reader of the node: one per reader, so a sample two readers get counts
  /// twice.
  std::atomic<std::uint64_t> delivered{0};
  /// Samples older than their validity when they reached a reader or when it read them.
  std::atomic<std::uint64_t> dropped_late{0};
  /// Samples lost to full rings: a publisher's ring the hub had not drained, or samples a reader
  /// did not take before `depth` newer ones arrived.
  std::atomic<std::uint64_t> dropped_overflow{0};
  /// The age of each delivered sample when the hub handed it to a reader here: from its
  /// publication (the publisher's global time) to its delivery (this node's global time), across
  /// the network for a sample from another node. The thread that delivers records it: the hub's
  /// sender for samples of this node (and, on DDS, for a channel the node publishes too), DDS's
  /// listener for a channel only other nodes publish on DDS, the hub's receiver for datagrams from
  /// other nodes. Each record is a relaxed load and store (TimingHistogram), so a channel that two
  /// of them deliver at one instant may miss a count; the figures stay those of real deliveries.
  TimingHistogram delivery;
};

/// A plain copy of ChannelCounters, for printing and tests.
struct ChannelCounts {
  std::uint64_t published = 0;
  std::uint64_t delivered = 0;
  std::uint64_t dropped_late = 0;
  std::uint64_t dropped_overflow = 0;
  /// Delivery age (ChannelCounters::delivery): median, 99th percentile and largest, in ns.
  std::uint64_t delivery_p50_ns = 0;
  std::uint64_t delivery_p99_ns = 0;
  std::uint64_t delivery_max_ns = 0;
};

inline ChannelCounts counts_of(const ChannelCounters& counters) noexcept {
  return {counters.published.load(std::memory_order_relaxed),
          counters.delivered.load(std::memory_order_relaxed),
          counters.dropped_late.load(std::memory_order_relaxed),
          counters.dropped_overflow.load(std::memory_order_relaxed),
          counters.delivery.percentile({50, 100}),
          counters.delivery.percentile(kP99),
          counters.delivery.max()};
}

inline void count(std::atomic<std::uint64_t>& counter, std::uint64_t n = 1) noexcept {
  counter.fetch_add(n, std::memory_order_relaxed);
}

/// A published value and the global time at which it was published.
template <typename T>
struct Sample {
  std::int64_t publish_ns = 0;  ///< kal::global_now() of the publisher, in nanoseconds
  T value{};
};

/// Whether a sample published at `publish_ns` is past its validity at `now_ns`.
constexpr bool expired(std::int64_t publish_ns, std::int64_t now_ns,
                       kal::Duration validity) noexcept {
  return validity.count() > 0 && now_ns - publish_ns > validity.count();
}

/// The newest `Depth` samples of one producer for one consumer (keep-last history): the producer
/// always puts, replacing the oldest sample the consumer is not copying at that moment; the
/// consumer takes samples it has not seen, oldest or newest first, and learns how many it never
/// saw. Wait-free for the producer and lock-free for the consumer; no allocation.
///
/// Each slot has a state word: its sample's sequence number (1, 2, ...; 0 for none) shifted by
/// two, and a flag that the producer is writing it or the consumer reading it. Either side takes
/// a slot by compare-and-swap of that word, so neither touches a sample while the other does:
/// the producer passes over the slot being read (one slot more than the depth makes room for
/// that), and the consumer passes over a slot being rewritten (its sample was the oldest, now
/// beyond the depth).
template <typename T, std::size_t Depth>
class SampleHistory {
  static_assert(Depth >= 1, "a history keeps at least one sample");

 public:
  static constexpr std::size_t kSlots = Depth + 1;

  /// Producer side: keeps `sample` as the newest. False only if the consumer kept taking the
  /// slot the producer chose, every time of a bounded number of tries (the sample is then lost).
  bool put(const Sample<T>& sample) noexcept {
    const std::uint64_t sequence = produced_ + 1;
    for (std::size_t attempt = 0; attempt < 4 * kSlots; ++attempt) {
      std::size_t victim = kSlots;
      std::uint64_t victim_word = 0;
      for (std::size_t s = 0; s < kSlots; ++s) {
        const std::uint64_t word = slots_[s].state.load(std::memory_order_acquire);
        if ((word & kBusy) != 0) {
          continue;
        }
        if (victim == kSlots || (word >> 2) < (victim_word >> 2)) {
          victim = s;
          victim_word = word;
        }
      }
      if (victim == kSlots) {
        continue;
      }
      Slot& slot = slots_[victim];
      if (!slot.state.compare_exchange_strong(victim_word, victim_word | kWriting,
                                              std::memory_order_acquire)) {
        continue;
      }
      slot.sample = sample;
      slot.state.store(sequence << 2, std::memory_order_release);
      produced_ = sequence;
      newest_.store(sequence, std::memory_order_release);
      return true;
    }
    return false;
  }

  /// Consumer side: the oldest sample not taken yet among the newest `Depth`. `skipped` grows by
  /// the samples between the last one taken and this one that the consumer never saw.
  bool take_oldest(Sample<T>& out, std::uint64_t& skipped) noexcept {
    return take(out, skipped, false);
  }

  /// Consumer side: the newest sample not taken yet; the older ones not taken count as skipped.
  bool take_newest(Sample<T>& out, std::uint64_t& skipped) noexcept {
    return take(out, skipped, true);
  }

  /// Consumer side: samples not taken yet, at most `Depth`.
  std::size_t waiting() const noexcept {
    const std::uint64_t newest = newest_.load(std::memory_order_acquire);
    const std::uint64_t unseen = newest - taken_;
    return static_cast<std::size_t>(unseen < Depth ? unseen : Depth);
  }

 private:
  static constexpr std::uint64_t kWriting = 1;
  static constexpr std::uint64_t kReading = 2;
  static constexpr std::uint64_t kBusy = kWriting | kReading;

  struct Slot {
    std::atomic<std::uint64_t> state{0};
    Sample<T> sample{};
  };

  bool take(Sample<T>& out, std::uint64_t& skipped, bool newest_first) noexcept {
    for (std::size_t attempt = 0; attempt < 4 * kSlots; ++attempt) {
      const std::uint64_t newest = newest_.load(std::memory_order_acquire);
      // Only the newest Depth samples count: an older one still in a slot is history.
      const std::uint64_t floor = newest > Depth ? newest - Depth : 0;
      const std::uint64_t after = taken_ > floor ? taken_ : floor;
      std::size_t chosen = kSlots;
      std::uint64_t chosen_word = 0;
      for (std::size_t s = 0; s < kSlots; ++s) {
        const std::uint64_t word = slots_[s].state.load(std::memory_order_acquire);
        const std::uint64_t sequence = word >> 2;
        if ((word & kBusy) != 0 || sequence <= after) {
          continue;
        }
        const bool better =
            newest_first ? sequence > (chosen_word >> 2) : sequence < (chosen_word >> 2);
        if (chosen == kSlots || better) {
          chosen = s;
          chosen_word = word;
        }
      }
      if (chosen == kSlots) {
        return false;
      }
      Slot& slot = slots_[chosen];
      if (!slot.state.compare_exchange_strong(chosen_word, chosen_word | kReading,
                                              std::memory_order_acquire)) {
        continue;  // being rewritten: its sample is beyond the depth now
      }
      out = slot.sample;
      slot.state.store(chosen_word, std::memory_order_release);
      const std::uint64_t sequence = chosen_word >> 2;
      skipped += sequence - taken_ - 1;
      taken_ = sequence;
      return true;
    }
    return false;
  }

  std::array<Slot, kSlots> slots_{};
  std::atomic<std::uint64_t> newest_{0};  ///< the newest sequence put (producer writes)
  std::uint64_t produced_ = 0;            ///< producer's own
  std::uint64_t taken_ = 0;               ///< consumer's own: the last sequence taken
};

/// What a publisher and a reader share of their node's channel: set once, at start-up, by the
/// node program (NodeChannel::attach).
struct ChannelBinding {
  const ChannelSpec* spec = nullptr;
  ChannelCounters* counters = nullptr;
  kal::Event* wake = nullptr;  ///< the hub's: a publisher sets it after each sample
};

/// The publishing side one method holds for one channel (`channels.track.publish(x)` in its
/// body). Wait-free: the sample is copied with its publish time into the method's own history of
/// the channel's depth, and the hub woken. If the hub, below every lane, has not drained it for
/// longer than `Depth` samples, the oldest are lost (counted as overflow when it drains), as a
/// keep-last channel would lose them anyway.
template <typename T, std::size_t Depth>
class Publisher {
 public:
  using Value = T;

  Publisher() noexcept = default;
  Publisher(const Publisher&) = delete;
  Publisher& operator=(const Publisher&) = delete;

  /// Publishes `value`, stamped with global time. False when the channel is not bound (a node
  /// that deploys the TMO without running its channels).
  bool publish(const T& value) noexcept {
    if (binding_.counters == nullptr) {
      return false;
    }
    scratch_.publish_ns = kal::to_nanoseconds(kal::global_now());
    scratch_.value = value;
    if (!history_.put(scratch_)) {
      count(binding_.counters->dropped_overflow);
      return false;
    }
    count(binding_.counters->published);
    binding_.wake->set();
    return true;
  }

  /// Set by the node program at start-up.
  void bind(const ChannelBinding& binding) noexcept { binding_ = binding; }
  bool bound() const noexcept { return binding_.counters != nullptr; }

  /// Hub side: the next sample to send, oldest first; samples lost since are counted.
  bool drain_next(Sample<T>& out) noexcept {
    std::uint64_t skipped = 0;
    const bool taken = history_.take_oldest(out, skipped);
    if (skipped > 0) {
      count(binding_.counters->dropped_overflow, skipped);
    }
    return taken;
  }

 private:
  SampleHistory<T, Depth> history_;
  Sample<T> scratch_{};
  ChannelBinding binding_{};
};

/// The reading side one method holds for one channel (`channels.track.take(sample)`). The hub
/// delivers into its keep-last history; the method takes samples oldest first, or the newest,
/// skipping (and counting) those past their validity. Samples it never saw because `Depth`
/// newer ones arrived first count as overflow.
template <typename T, std::size_t Depth>
class Reader {
 public:
  using Value = T;

  Reader() noexcept = default;
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  /// Takes the oldest valid sample not yet taken among the newest `Depth` delivered; false when
  /// there is none.
  bool take(Sample<T>& out) noexcept { return next(out, false); }

  /// Takes the newest valid sample; the older ones not taken are dropped (as overflow: the
  /// method chose not to see them). False when there is none.
  bool latest(Sample<T>& out) noexcept { return next(out, true); }

  /// Samples delivered and not taken yet (at most `Depth`; some may have expired).
  std::size_t waiting() const noexcept { return history_.waiting(); }

  void bind(const ChannelBinding& binding) noexcept { binding_ = binding; }
  bool bound() const noexcept { return binding_.counters != nullptr; }

  /// Hub side: hands `sample` to this reader at global time `now_ns`; a sample already past its
  /// validity is dropped as late.
  void deliver(const Sample<T>& sample, std::int64_t now_ns) noexcept {
    if (expired(sample.publish_ns, now_ns, binding_.spec->validity)) {
      count(binding_.counters->dropped_late);
      return;
    }
    if (!history_.put(sample)) {
      count(binding_.counters->dropped_overflow);
      return;
    }
    count(binding_.counters->delivered);
    binding_.counters->delivery.record(now_ns - sample.publish_ns);
  }

 private:
  bool next(Sample<T>& out, bool newest_first) noexcept {
    if (binding_.counters == nullptr) {
      return false;
    }
    const std::int64_t now = kal::to_nanoseconds(kal::global_now());
    // Bounded: each round takes a sample out of a history of `Depth`.
    for (std::size_t round = 0; round <= Depth; ++round) {
      std::uint64_t skipped = 0;
      const bool taken =
          newest_first ? history_.take_newest(out, skipped) : history_.take_oldest(out, skipped);
      if (skipped > 0) {
        count(binding_.counters->dropped_overflow, skipped);
      }
      if (!taken) {
        return false;
      }
      if (!expired(out.publish_ns, now, binding_.spec->validity)) {
        return true;
      }
      count(binding_.counters->dropped_late);
      if (newest_first) {
        return false;  // the newest is too old: so is every other
      }
    }
    return false;
  }

  SampleHistory<T, Depth> history_;
  ChannelBinding binding_{};
};

/// How a hub sends a channel's encoded samples on (to its subscriber nodes); given to
/// NodeChannel::drain. `body` is the CDR encoding of the sample's value.
class SampleSink {
 public:
  /// Whether any node other than this one reads the channel: otherwise drain encodes nothing.
  virtual bool has_remote_readers(std::uint16_t channel_id) const noexcept = 0;
  /// Scratch space for one encoded body.
  virtual std::span<std::byte> encode_buffer() noexcept = 0;
  /// Sends the sample of `channel_id` whose body is the first `size` bytes of encode_buffer().
  virtual void send(std::uint16_t channel_id, std::int64_t publish_ns,
                    std::size_t size) noexcept = 0;

 protected:
  ~SampleSink() = default;
};

/// What the hub knows of each channel of its node, whatever its payload type.
struct ChannelPort {
  const ChannelSpec* spec = nullptr;
  ChannelCounters* counters = nullptr;
  void* channel = nullptr;
  /// Drains every publisher's ring: each sample goes to the node's readers and, encoded, to the
  /// sink. Returns the samples drained.
  std::size_t (*drain)(void* channel, SampleSink& sink, std::int64_t now_ns) noexcept = nullptr;
  /// Decodes a sample that came from another node and hands it to the node's readers; false
  /// (and nothing delivered) when the body is malformed.
  bool (*receive)(void* channel, std::span<const std::byte> body, bool little_endian,
                  std::int64_t publish_ns, std::int64_t now_ns) noexcept = nullptr;
};

/// One channel on one node: its counters, and the publishers and readers of the node's methods
/// (at most `Publishers` and `Readers` of them: fixed capacities from the generated tables).
template <typename T, std::size_t Depth, std::size_t Publishers, std::size_t Readers>
class NodeChannel {
 public:
  using PublisherType = Publisher<T, Depth>;
  using ReaderType = Reader<T, Depth>;

  explicit NodeChannel(const ChannelSpec& spec) noexcept : spec_(&spec) {}
  NodeChannel(const NodeChannel&) = delete;
  NodeChannel& operator=(const NodeChannel&) = delete;

  /// Binds a publishing method's ring to this channel; false when there are more than the table
  /// said.
  bool attach(PublisherType& publisher, kal::Event& wake) noexcept {
    if (publisher_count_ == Publishers) {
      return false;
    }
    publisher.bind({spec_, &counters_, &wake});
    publishers_[publisher_count_++] = &publisher;
    return true;
  }

  /// Binds a reading method's ring to this channel; false when there are more than the table said.
  bool attach(ReaderType& reader, kal::Event& wake) noexcept {
    if (reader_count_ == Readers) {
      return false;
    }
    reader.bind({spec_, &counters_, &wake});
    readers_[reader_count_++] = &reader;
    return true;
  }

  const ChannelSpec& spec() const noexcept { return *spec_; }
  ChannelCounters& counters() noexcept { return counters_; }
  ChannelCounts counts() const noexcept { return counts_of(counters_); }

  /// Where the hub hands each sample it drains besides the node's readers: a transport that
  /// carries the channel itself (DDS on Linux). Called on the hub's sender thread.
  using Forward = void (*)(void* context, const Sample<T>& sample) noexcept;
  void set_forward(Forward forward, void* context) noexcept {
    forward_ = forward;
    forward_context_ = context;
  }

  /// The type-erased view the hub drives.
  ChannelPort port() noexcept { return {spec_, &counters_, this, &drain_port, &receive_port}; }

  /// Hub side: see ChannelPort::drain.
  std::size_t drain(SampleSink& sink, std::int64_t now_ns) noexcept {
    std::size_t drained = 0;
    const bool remote = sink.has_remote_readers(spec_->id);
    for (std::size_t p = 0; p < publisher_count_; ++p) {
      PublisherType& publisher = *publishers_[p];
      // Bounded: a publisher's history holds `Depth` samples, and the hub takes them faster
      // than a lane above it can put new ones only while that lane sleeps.
      for (std::size_t taken = 0; taken < 4 * Depth && publisher.drain_next(draining_); ++taken) {
        deliver(draining_, now_ns);
        if (forward_ != nullptr) {
          forward_(forward_context_, draining_);
        }
        if (remote) {
          const std::span<std::byte> buffer = sink.encode_buffer();
          cdr::Writer writer(buffer);
          if (encode(writer, draining_.value) == cdr::Status::kOk) {
            sink.send(spec_->id, draining_.publish_ns, writer.size());
          }
        }
        ++drained;
      }
    }
    return drained;
  }

  /// Hub side: see ChannelPort::receive.
  bool receive(std::span<const std::byte> body, bool little_endian, std::int64_t publish_ns,
               std::int64_t now_ns) noexcept {
    cdr::Reader reader(body, little_endian);
    received_.publish_ns = publish_ns;
    if (decode(reader, received_.value) != cdr::Status::kOk ||
        reader.finish() != cdr::Status::kOk) {
      return false;
    }
    deliver(received_, now_ns);
    return true;
  }

  /// Hands `sample` to every reader of the node.
  void deliver(const Sample<T>& sample, std::int64_t now_ns) noexcept {
    for (std::size_t r = 0; r < reader_count_; ++r) {
      readers_[r]->deliver(sample, now_ns);
    }
  }

 private:
  static std::size_t drain_port(void* channel, SampleSink& sink, std::int64_t now_ns) noexcept {
    return static_cast<NodeChannel*>(channel)->drain(sink, now_ns);
  }
  static bool receive_port(void* channel, std::span<const std::byte> body, bool little_endian,
                           std::int64_t publish_ns, std::int64_t now_ns) noexcept {
    return static_cast<NodeChannel*>(channel)->receive(body, little_endian, publish_ns, now_ns);
  }

  const ChannelSpec* spec_;
  ChannelCounters counters_{};
  std::array<PublisherType*, Publishers == 0 ? 1 : Publishers> publishers_{};
  std::array<ReaderType*, Readers == 0 ? 1 : Readers> readers_{};
  std::size_t publisher_count_ = 0;
  std::size_t reader_count_ = 0;
  Sample<T> received_{};  ///< decoded here, not on the hub's stack: payloads can be large
  Sample<T> draining_{};
  Forward forward_ = nullptr;
  void* forward_context_ = nullptr;
};

}  // namespace kairos::channel
