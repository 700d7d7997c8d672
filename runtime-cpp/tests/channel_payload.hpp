// A channel payload for the channel tests, with the encode/decode overloads generated code would
// give it (kairos/cdr.hpp).
#pragma once

#include <cstdint>

#include <kairos/bounded.hpp>
#include <kairos/cdr.hpp>
#include <kairos/channel/channel.hpp>

namespace channel_payload {

struct Fix {
  std::uint32_t seq{};
  double lat{};
  ::kairos::BoundedString<8> label{};

  friend bool operator==(const Fix&, const Fix&) = default;
};

inline ::kairos::cdr::Status encode(::kairos::cdr::Writer& writer, const Fix& value) noexcept {
  encode(writer, value.seq);
  encode(writer, value.lat);
  encode(writer, value.label);
  return writer.status();
}
inline ::kairos::cdr::Status decode(::kairos::cdr::Reader& reader, Fix& value) noexcept {
  decode(reader, value.seq);
  decode(reader, value.lat);
  decode(reader, value.label);
  return reader.status();
}

/// A channel's table row as the generated tables write it, for the tests.
inline kairos::channel::ChannelSpec channel_spec(std::uint16_t id, std::uint16_t depth,
                                                 kairos::kal::Duration validity = {},
                                                 std::uint8_t fan_out = 2) {
  kairos::channel::ChannelSpec spec;
  spec.name = "track";
  spec.topic = "test_track";
  spec.id = id;
  spec.depth = depth;
  spec.validity = validity;
  spec.fan_out = fan_out;
  return spec;
}

}  // namespace channel_payload
