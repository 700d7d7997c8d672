// The channel core without a network: publishers' rings, the hub's drain, readers' keep-last
// history, validity and the counters, and the datagram header between nodes.
#include "kairos_catch.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <thread>
#include <vector>

#include <kairos/channel/channel.hpp>
#include <kairos/channel/hub.hpp>

#include "allocation_counter.hpp"
#include "channel_payload.hpp"

using channel_payload::Fix;
using kairos::channel::ChannelSpec;
using kairos::channel::Sample;
using namespace std::chrono_literals;

namespace {

using Track = kairos::channel::NodeChannel<Fix, 2, 2, 2>;

/// A sink that records what the hub would send to other nodes.
class RecordingSink final : public kairos::channel::SampleSink {
 public:
  bool remote = false;
  std::vector<std::vector<std::byte>> sent;
  std::vector<std::int64_t> stamps;

  bool has_remote_readers(std::uint16_t /*channel_id*/) const noexcept override { return remote; }
  std::span<std::byte> encode_buffer() noexcept override { return buffer_; }
  void send(std::uint16_t /*channel_id*/, std::int64_t publish_ns,
            std::size_t size) noexcept override {
    sent.emplace_back(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(size));
    stamps.push_back(publish_ns);
  }

 private:
  std::array<std::byte, 256> buffer_{};
};

Fix fix(std::uint32_t seq) {
  return Fix{seq, 48.0 + seq, {}};
}

std::int64_t now_ns() {
  return kairos::kal::to_nanoseconds(kairos::kal::global_now());
}

}  // namespace

TEST_CASE("a published sample reaches every reader of the node once, in order", "[channel]") {
  const ChannelSpec spec = channel_payload::channel_spec(3, 2, {}, 2);
  Track channel{spec};
  kairos::kal::Event wake;
  Track::PublisherType publisher;
  Track::ReaderType first;
  Track::ReaderType second;
  REQUIRE(channel.attach(publisher, wake));
  REQUIRE(channel.attach(first, wake));
  REQUIRE(channel.attach(second, wake));
  Track::ReaderType third;
  REQUIRE_FALSE(channel.attach(third, wake));  // the table said two readers

  REQUIRE(publisher.publish(fix(1)));
  REQUIRE(wake.wait_until(kairos::kal::MonotonicClock::now()));  // the hub is woken
  RecordingSink sink;
  REQUIRE(channel.drain(sink, now_ns()) == 1);
  REQUIRE(sink.sent.empty());  // nobody elsewhere reads it: nothing encoded
  Sample<Fix> taken;
  REQUIRE(first.take(taken));
  REQUIRE(taken.value == fix(1));
  REQUIRE_FALSE(first.take(taken));
  REQUIRE(second.take(taken));
  REQUIRE(taken.value == fix(1));
  const auto counts = channel.counts();
  REQUIRE(counts.published == 1);
  REQUIRE(counts.delivered == 2);
  REQUIRE(counts.dropped_late == 0);
  REQUIRE(counts.dropped_overflow == 0);
}

TEST_CASE("a reader keeps the newest depth samples and counts the older as overflow", "[channel]") {
  const ChannelSpec spec = channel_payload::channel_spec(1, 2);
  Track channel{spec};
  kairos::kal::Event wake;
  Track::PublisherType publisher;
  Track::ReaderType reader;
  REQUIRE(channel.attach(publisher, wake));
  REQUIRE(channel.attach(reader, wake));
  RecordingSink sink;
  for (std::uint32_t seq = 1; seq <= 3; ++seq) {
    REQUIRE(publisher.publish(fix(seq)));
  }
  channel.drain(sink, now_ns());
  Sample<Fix> taken;
  REQUIRE(reader.take(taken));
  REQUIRE(taken.value.seq == 2);
  REQUIRE(reader.take(taken));
  REQUIRE(taken.value.seq == 3);
  REQUIRE_FALSE(reader.take(taken));
  REQUIRE(channel.counts().dropped_overflow == 1);

  // latest() keeps only the newest.
  for (std::uint32_t seq = 4; seq <= 5; ++seq) {
    REQUIRE(publisher.publish(fix(seq)));
  }
  channel.drain(sink, now_ns());
  REQUIRE(reader.latest(taken));
  REQUIRE(taken.value.seq == 5);
  REQUIRE(channel.counts().dropped_overflow == 2);
}

TEST_CASE("a publisher the hub has not drained keeps its newest depth samples, never blocks",
          "[channel]") {
  const ChannelSpec spec = channel_payload::channel_spec(1, 2);
  Track channel{spec};
  kairos::kal::Event wake;
  Track::PublisherType publisher;
  Track::ReaderType reader;
  REQUIRE(channel.attach(publisher, wake));
  REQUIRE(channel.attach(reader, wake));
  for (std::uint32_t seq = 0; seq < 10; ++seq) {
    REQUIRE(publisher.publish(fix(seq)));
  }
  RecordingSink sink;
  REQUIRE(channel.drain(sink, now_ns()) == 2);
  Sample<Fix> taken;
  REQUIRE(reader.take(taken));
  REQUIRE(taken.value.seq == 8);
  REQUIRE(reader.take(taken));
  REQUIRE(taken.value.seq == 9);
  REQUIRE(channel.counts().published == 10);
  REQUIRE(channel.counts().dropped_overflow == 8);
  Track::PublisherType unbound;
  REQUIRE_FALSE(unbound.publish(fix(1)));
}

TEST_CASE("a history passes over the slot its consumer holds and keeps the newest depth",
          "[channel]") {
  kairos::channel::SampleHistory<int, 3> history;
  std::uint64_t skipped = 0;
  Sample<int> out;
  REQUIRE_FALSE(history.take_oldest(out, skipped));
  for (int v = 1; v <= 7; ++v) {
    REQUIRE(history.put({v, v}));
  }
  REQUIRE(history.waiting() == 3);
  REQUIRE(history.take_oldest(out, skipped));
  REQUIRE(out.value == 5);
  REQUIRE(skipped == 4);
  REQUIRE(history.take_newest(out, skipped));
  REQUIRE(out.value == 7);
  REQUIRE(skipped == 5);  // 6 was never taken
  REQUIRE_FALSE(history.take_oldest(out, skipped));
  REQUIRE(history.waiting() == 0);
}

TEST_CASE("a sample past its validity is dropped when delivered or when read", "[channel]") {
  const ChannelSpec spec = channel_payload::channel_spec(1, 2, 1ms);
  Track channel{spec};
  kairos::kal::Event wake;
  Track::PublisherType publisher;
  Track::ReaderType reader;
  REQUIRE(channel.attach(publisher, wake));
  REQUIRE(channel.attach(reader, wake));
  RecordingSink sink;
  REQUIRE(publisher.publish(fix(1)));
  // Delivered 2 ms after it was published: late.
  channel.drain(sink, now_ns() + 2'000'000);
  Sample<Fix> taken;
  REQUIRE_FALSE(reader.take(taken));
  REQUIRE(channel.counts().dropped_late == 1);
  REQUIRE(channel.counts().delivered == 0);

  // Delivered in time, read too late: a sample stamped 2 ms in the past.
  channel.deliver(Sample<Fix>{now_ns() - 2'000'000, fix(2)}, now_ns() - 1'500'000);
  REQUIRE(channel.counts().delivered == 1);
  REQUIRE_FALSE(reader.take(taken));
  REQUIRE(channel.counts().dropped_late == 2);
}

TEST_CASE("samples for other nodes are encoded once and decoded there field by field",
          "[channel]") {
  const ChannelSpec spec = channel_payload::channel_spec(7, 1);
  Track here{spec};
  Track there{spec};
  kairos::kal::Event wake;
  Track::PublisherType publisher;
  Track::ReaderType reader;
  REQUIRE(here.attach(publisher, wake));
  REQUIRE(there.attach(reader, wake));
  RecordingSink sink;
  sink.remote = true;
  Fix value = fix(9);
  value.label.assign("north");
  REQUIRE(publisher.publish(value));
  here.drain(sink, now_ns());
  REQUIRE(sink.sent.size() == 1);
  auto port = there.port();
  REQUIRE(port.receive(port.channel, sink.sent[0], std::endian::native == std::endian::little,
                       sink.stamps[0], now_ns()));
  Sample<Fix> taken;
  REQUIRE(reader.take(taken));
  REQUIRE(taken.value == value);
  REQUIRE(taken.publish_ns == sink.stamps[0]);
  // A truncated body is malformed: refused, nothing delivered.
  const std::span<const std::byte> cut(sink.sent[0].data(), sink.sent[0].size() - 1);
  REQUIRE_FALSE(port.receive(port.channel, cut, true, 0, now_ns()));
  REQUIRE(there.counts().delivered == 1);
}

TEST_CASE("the sample header names its channel and publish time, in either byte order",
          "[channel]") {
  std::array<std::byte, kairos::channel::kSampleHeaderSize> header{};
  kairos::channel::write_sample_header(header, 513, 123456789);
  std::uint16_t id = 0;
  std::int64_t stamp = 0;
  bool little = false;
  REQUIRE(kairos::channel::read_sample_header(header, id, stamp, little));
  REQUIRE(id == 513);
  REQUIRE(stamp == 123456789);
  REQUIRE(little == (std::endian::native == std::endian::little));

  // The same header as the other byte order writes it.
  std::array<std::byte, kairos::channel::kSampleHeaderSize> foreign = header;
  std::reverse(foreign.begin(), foreign.begin() + 4);
  foreign[5] = std::byte{static_cast<unsigned char>(little ? 0 : 1)};
  std::reverse(foreign.begin() + 6, foreign.begin() + 8);
  std::reverse(foreign.begin() + 8, foreign.end());
  REQUIRE(kairos::channel::read_sample_header(foreign, id, stamp, little));
  REQUIRE(id == 513);
  REQUIRE(stamp == 123456789);

  // Too short, wrong magic, wrong version: refused.
  REQUIRE_FALSE(
      kairos::channel::read_sample_header(std::span(header).first(15), id, stamp, little));
  std::array<std::byte, kairos::channel::kSampleHeaderSize> bad = header;
  bad[0] = std::byte{0};
  REQUIRE_FALSE(kairos::channel::read_sample_header(bad, id, stamp, little));
  bad = header;
  bad[4] = std::byte{9};
  REQUIRE_FALSE(kairos::channel::read_sample_header(bad, id, stamp, little));
}

TEST_CASE("publishing, draining and taking allocate nothing", "[channel]") {
  const ChannelSpec spec = channel_payload::channel_spec(1, 2, 1s);
  Track channel{spec};
  kairos::kal::Event wake;
  Track::PublisherType publisher;
  Track::ReaderType reader;
  REQUIRE(channel.attach(publisher, wake));
  REQUIRE(channel.attach(reader, wake));
  RecordingSink sink;  // no remote readers: its vectors stay untouched
  Sample<Fix> taken;
  const std::uint64_t before = testing::allocations();
  for (std::uint32_t seq = 0; seq < 1000; ++seq) {
    publisher.publish(fix(seq));
    channel.drain(sink, now_ns());
    reader.take(taken);
  }
  REQUIRE(testing::allocations() == before);
  REQUIRE(channel.counts().published == 1000);
  REQUIRE(channel.counts().delivered == 1000);
}

TEST_CASE("a channel line counts what the channel did", "[channel]") {
  ChannelSpec spec = channel_payload::channel_spec(1, 1);
  std::array<char, kairos::channel::kChannelLineCapacity> line{};
  const std::size_t length = kairos::channel::format_channel(line, "mission1", spec,
                                                             {.published = 40,
                                                              .delivered = 38,
                                                              .dropped_late = 1,
                                                              .dropped_overflow = 1,
                                                              .delivery_p50_ns = 61'250,
                                                              .delivery_p99_ns = 180'000,
                                                              .delivery_max_ns = 1'204'400});
  REQUIRE(std::string_view(line.data(), length) ==
          "channel node=mission1 channel=track topic=test_track published=40 delivered=38 "
          "dropped_late=1 dropped_overflow=1 delivery_p50_us=61.2 delivery_p99_us=180.0 "
          "delivery_max_us=1204.4 analysed_bound_us=none\n");
  spec.delivery_bound = std::chrono::microseconds{16907};
  const std::size_t bounded = kairos::channel::format_channel(line, "mission2", spec, {});
  REQUIRE(std::string_view(line.data(), bounded)
              .ends_with("delivery_max_us=0.0 analysed_bound_us=16907.0\n"));
}

TEST_CASE("a history taken while it is put never yields a torn or reordered sample",
          "[channel][stress]") {
  struct Wide {
    std::array<std::uint64_t, 32> words{};
  };
  static kairos::channel::SampleHistory<Wide, 2> history;
  constexpr std::uint64_t kSamples = 200'000;
  std::thread producer([] {
    Sample<Wide> sample;
    for (std::uint64_t n = 1; n <= kSamples; ++n) {
      sample.publish_ns = static_cast<std::int64_t>(n);
      sample.value.words.fill(n);
      history.put(sample);
    }
  });
  std::uint64_t last = 0;
  std::uint64_t taken = 0;
  std::uint64_t skipped = 0;
  bool torn = false;
  Sample<Wide> out;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (last < kSamples && std::chrono::steady_clock::now() < give_up) {
    if (history.take_oldest(out, skipped)) {
      const auto n = static_cast<std::uint64_t>(out.publish_ns);
      torn = torn || n <= last ||
             std::any_of(out.value.words.begin(), out.value.words.end(),
                         [n](std::uint64_t w) { return w != n; });
      last = n;
      ++taken;
    }
  }
  producer.join();
  REQUIRE_FALSE(torn);
  REQUIRE(last == kSamples);
  REQUIRE(taken + skipped == kSamples);
}
