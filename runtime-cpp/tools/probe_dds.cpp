// The channel transport figure of kairos-probe: a sample's way through Cyclone DDS between two
// processes of this host, as the samples of a channel between two Linux nodes go (written on the
// publisher's hub, received by DDS's thread on the reader's node and handed over in its
// listener). Both ends run as a node's hub does, at the lowest real-time band on the probe's CPU,
// through the same link (kairos/channel/dds.hpp) with the QoS of a reliable channel, in the
// default domain that CYCLONEDDS_URI chooses for the nodes too.
#include <kairos/probe_dds.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <kairos/channel/dds.hpp>
#include <kairos/kal/clock.hpp>
#include <kairos/kal/thread.hpp>

#include "probe_sample.h"

namespace kairos::probe {
namespace {

using namespace std::chrono_literals;

constexpr int kWarmUpSamples = 100;
constexpr int kSamples = 2'000;
constexpr kal::Duration kInterval = 1ms;
constexpr kal::Duration kMatchTimeout = 10s;
/// How long the reader waits for the last sample beyond the writer's run.
constexpr kal::Duration kReaderGrace = 5s;

channel::ChannelSpec probe_channel(const std::string& topic) {
  channel::ChannelSpec spec;
  spec.name = "transport";
  spec.topic = topic;
  spec.reliability = channel::Reliability::kReliable;
  spec.depth = 64;
  return spec;
}

struct ReaderSide {
  std::array<std::int64_t, kWarmUpSamples + kSamples> one_way_ns{};
  std::atomic<int> received{0};
};

bool on_sample(void* context, const void* c_sample, std::int64_t publish_ns,
               std::int64_t now_ns) noexcept {
  auto& side = *static_cast<ReaderSide*>(context);
  const auto& sample = *static_cast<const kairos_probe_TransportSample*>(c_sample);
  if (sample.number >= side.one_way_ns.size()) {
    return false;
  }
  side.one_way_ns[sample.number] = now_ns - publish_ns;
  side.received.fetch_add(1, std::memory_order_release);
  return true;
}

/// The reading process: takes the samples in DDS's listener until it has them all or the run is
/// over, and writes what it measured (a count, then the one-way times) to `pipe_fd`.
[[noreturn]] void read_samples(const std::string& topic, int cpu, int pipe_fd) {
  auto side = std::make_unique<ReaderSide>();
  const channel::ChannelSpec spec = probe_channel(topic);
  channel::dds::DdsLink link({"probe-reader", cpu, kal::kLowestBand});
  const bool ready = link.as_hub([&]() noexcept {
    return link.create_participant() == kal::Status::kOk &&
           link.add_reader(spec, kairos_probe_TransportSample_desc, &on_sample, side.get(),
                           channel::dds::Delivery::kInListener) == kal::Status::kOk;
  });
  const kal::TimePoint give_up = kal::MonotonicClock::now() + kMatchTimeout +
                                 kInterval * (kWarmUpSamples + kSamples) + kReaderGrace;
  while (ready && side->received.load(std::memory_order_acquire) < kWarmUpSamples + kSamples &&
         kal::MonotonicClock::now() < give_up) {
    kal::sleep_until(kal::MonotonicClock::now() + 10ms);
  }
  link.stop();
  std::vector<std::int64_t> measured;
  const int received = side->received.load(std::memory_order_acquire);
  if (ready && received >= kWarmUpSamples + kSamples) {
    measured.assign(side->one_way_ns.begin() + kWarmUpSamples, side->one_way_ns.end());
  }
  const std::uint32_t count = static_cast<std::uint32_t>(measured.size());
  bool written = ::write(pipe_fd, &count, sizeof count) == static_cast<ssize_t>(sizeof count);
  const std::size_t bytes = measured.size() * sizeof(std::int64_t);
  written = written &&
            (bytes == 0 || ::write(pipe_fd, measured.data(), bytes) == static_cast<ssize_t>(bytes));
  ::close(pipe_fd);
  ::_exit(written ? 0 : 1);
}

struct WriterSide {
  dds_entity_t writer = 0;
  bool written = true;
};

/// The hub's sender, as a node's: writes a sample every kInterval, timestamped as it is written.
void write_samples(void* context) noexcept {
  auto& side = *static_cast<WriterSide*>(context);
  kal::TimePoint next = kal::MonotonicClock::now();
  for (std::uint32_t sequence = 0; sequence < kWarmUpSamples + kSamples && side.written;
       ++sequence) {
    next += kInterval;
    kal::sleep_until(next);
    const kairos_probe_TransportSample sample{sequence};
    side.written = dds_write_ts(side.writer, &sample, dds_time()) == DDS_RETCODE_OK;
  }
}

bool read_fully(int fd, void* into, std::size_t bytes) {
  auto* at = static_cast<char*>(into);
  while (bytes > 0) {
    const ssize_t got = ::read(fd, at, bytes);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      return false;
    }
    at += got;
    bytes -= static_cast<std::size_t>(got);
  }
  return true;
}

}  // namespace

kal::Status dds_transport(const ProbeOptions& options, int cpu, Distribution& out) noexcept {
  const std::string topic = "kairos_probe_transport_" + std::to_string(::getpid());
  int pipe_fds[2] = {-1, -1};
  if (::pipe(pipe_fds) != 0) {
    return kal::Status::kPlatformError;
  }
  // The reader is forked before this process touches DDS, so that the child starts its own.
  const pid_t reader = ::fork();
  if (reader < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return kal::Status::kPlatformError;
  }
  if (reader == 0) {
    ::close(pipe_fds[0]);
    read_samples(topic, cpu, pipe_fds[1]);
  }
  ::close(pipe_fds[1]);
  const channel::ChannelSpec spec = probe_channel(topic);
  kal::Status status = kal::Status::kOk;
  {
    channel::dds::DdsLink link({"probe-writer", cpu, kal::kLowestBand});
    WriterSide side;
    const bool ready = link.as_hub([&]() noexcept {
      if (link.create_participant() != kal::Status::kOk) {
        return false;
      }
      side.writer = link.add_writer(spec, kairos_probe_TransportSample_desc);
      return side.writer > 0;
    });
    // The reader matched: its first samples are not lost to discovery.
    const kal::TimePoint give_up = kal::MonotonicClock::now() + kMatchTimeout;
    dds_publication_matched_status_t matched{};
    while (ready && kal::MonotonicClock::now() < give_up &&
           (dds_get_publication_matched_status(side.writer, &matched) != DDS_RETCODE_OK ||
            matched.current_count == 0)) {
      kal::sleep_until(kal::MonotonicClock::now() + 10ms);
    }
    if (!ready || matched.current_count == 0) {
      status = kal::Status::kUnavailable;
    } else {
      kal::Thread sender;
      status =
          sender.start({"kairos-probe-dds", kal::kLowestBand, cpu, 256 * 1024, options.real_time},
                       &write_samples, &side);
      if (status == kal::Status::kOk) {
        sender.join();
        status = side.written ? kal::Status::kOk : kal::Status::kPlatformError;
      }
    }
  }
  if (status != kal::Status::kOk) {
    ::kill(reader, SIGTERM);  // it would wait for samples that never come
  }
  std::uint32_t count = 0;
  std::vector<std::int64_t> measured;
  if (read_fully(pipe_fds[0], &count, sizeof count) && count > 0) {
    measured.resize(count);
    if (!read_fully(pipe_fds[0], measured.data(), count * sizeof(std::int64_t))) {
      measured.clear();
    }
  }
  ::close(pipe_fds[0]);
  int reader_status = 0;
  while (::waitpid(reader, &reader_status, 0) < 0 && errno == EINTR) {
  }
  if (status == kal::Status::kOk && measured.empty()) {
    status = kal::Status::kUnavailable;  // the reader did not get every sample in time
  }
  out = distribution_of(measured);
  return status;
}

}  // namespace kairos::probe
