// Eclipse Cyclone DDS (Debian's cyclonedds-dev, C API) doing the cubit request/reply
// ping-pong: per payload kind a request topic and a reply topic of the same type (from
// cubit_dds.idl), reliable, keep-last 1, volatile; the server takes a request, cubes it and
// writes the reply. Traffic stays on loopback: the one interface is 127.0.0.1, multicast is
// off and discovery goes to unicast peers on 127.0.0.1.
#include <dds/dds.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "../process.hpp"
#include "../stack.hpp"
#include "cubit_dds.h"

namespace cubit {
namespace {

constexpr dds_duration_t kCallTimeout = DDS_SECS(5);
constexpr std::int64_t kMatchTimeoutNs = 10'000'000'000;
constexpr std::int64_t kServerIdleNs = 60'000'000'000;

std::string loopback_config() {
  return "<CycloneDDS><Domain id=\"any\">"
         "<General><Interfaces><NetworkInterface address=\"127.0.0.1\"/></Interfaces>"
         "<AllowMulticast>false</AllowMulticast></General>"
         "<Discovery><ParticipantIndex>auto</ParticipantIndex>"
         "<Peers><Peer address=\"127.0.0.1\"/></Peers></Discovery>"
         "</Domain></CycloneDDS>";
}

const dds_topic_descriptor_t* descriptor(Kind kind) {
  switch (kind) {
    case Kind::kOctet:
      return &kairos_cubit_OctetValue_desc;
    case Kind::kShort:
      return &kairos_cubit_ShortValue_desc;
    case Kind::kLong:
      return &kairos_cubit_LongValue_desc;
    case Kind::kComposite:
      return &kairos_cubit_CompositeValue_desc;
    case Kind::kSequence:
      return &kairos_cubit_SequenceValue_desc;
  }
  return nullptr;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kOctet:
      return "octet";
    case Kind::kShort:
      return "short";
    case Kind::kLong:
      return "long";
    case Kind::kComposite:
      return "struct";
    case Kind::kSequence:
      return "sequence";
  }
  return "?";
}

/// One sample of each type, for writing; a sequence borrows the Value's array (no copy).
struct Samples {
  kairos_cubit_OctetValue octet{};
  kairos_cubit_ShortValue shrt{};
  kairos_cubit_LongValue lng{};
  kairos_cubit_CompositeValue composite{};
  kairos_cubit_SequenceValue sequence{};

  const void* from(const Value& value) {
    switch (value.kind) {
      case Kind::kOctet:
        octet.value = value.octet;
        return &octet;
      case Kind::kShort:
        shrt.value = value.shrt;
        return &shrt;
      case Kind::kLong:
        lng.value = value.lng;
        return &lng;
      case Kind::kComposite:
        composite = {value.composite.octet, value.composite.shrt, value.composite.lng,
                     value.composite.dbl};
        return &composite;
      case Kind::kSequence:
        // dds_write only reads the buffer.
        sequence.values = {value.length, value.length,
                           const_cast<std::int32_t*>(value.sequence.data()), false};
        return &sequence;
    }
    return nullptr;
  }
};

/// Copies a received sample into `value`; false when it does not fit.
bool to_value(Kind kind, const void* sample, Value& value) {
  value.kind = kind;
  value.length = 1;
  switch (kind) {
    case Kind::kOctet:
      value.octet = static_cast<const kairos_cubit_OctetValue*>(sample)->value;
      return true;
    case Kind::kShort:
      value.shrt = static_cast<const kairos_cubit_ShortValue*>(sample)->value;
      return true;
    case Kind::kLong:
      value.lng = static_cast<const kairos_cubit_LongValue*>(sample)->value;
      return true;
    case Kind::kComposite: {
      const auto* c = static_cast<const kairos_cubit_CompositeValue*>(sample);
      value.composite = {c->o, c->s, c->l, c->d};
      return true;
    }
    case Kind::kSequence: {
      const auto& s = static_cast<const kairos_cubit_SequenceValue*>(sample)->values;
      if (s._length > kMaxSequence || (s._length > 0 && s._buffer == nullptr)) {
        return false;
      }
      value.length = s._length;
      std::memcpy(value.sequence.data(), s._buffer, 4 * std::size_t{s._length});
      return true;
    }
  }
  return false;
}

/// Takes one sample (loaned from the reader) into `value`: 1 taken, 0 none, -1 malformed.
int take_one(dds_entity_t reader, Kind kind, Value& value) {
  void* samples[1] = {nullptr};
  dds_sample_info_t info[1];
  const dds_return_t taken = dds_take(reader, samples, info, 1, 1);
  if (taken <= 0) {
    return 0;
  }
  int result = 0;
  if (info[0].valid_data) {
    result = to_value(kind, samples[0], value) ? 1 : -1;
  }
  dds_return_loan(reader, samples, taken);
  return result;
}

dds_qos_t* request_reply_qos() {
  dds_qos_t* qos = dds_create_qos();
  dds_qset_reliability(qos, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
  dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, 1);
  dds_qset_durability(qos, DDS_DURABILITY_VOLATILE);
  return qos;
}

// The token keeps concurrent runs on the same domain apart.
std::string topic_name(const std::string& token, const std::string& what) {
  std::string name = "cubit_" + token + "_" + what;
  for (char& c : name) {
    c = c == '-' ? '_' : c;
  }
  return name;
}
std::string topic_name(const std::string& token, const char* direction, Kind kind) {
  return topic_name(token, std::string(direction) + "_" + kind_name(kind));
}

bool wait_matched(dds_entity_t writer, dds_entity_t reader) {
  const std::int64_t deadline = now_ns() + kMatchTimeoutNs;
  while (now_ns() < deadline) {
    dds_publication_matched_status_t published{};
    dds_subscription_matched_status_t subscribed{};
    const bool writer_ok =
        writer == 0 || (dds_get_publication_matched_status(writer, &published) == DDS_RETCODE_OK &&
                        published.current_count > 0);
    const bool reader_ok = reader == 0 || (dds_get_subscription_matched_status(
                                               reader, &subscribed) == DDS_RETCODE_OK &&
                                           subscribed.current_count > 0);
    if (writer_ok && reader_ok) {
      return true;
    }
    dds_sleepfor(DDS_MSECS(1));
  }
  return false;
}

/// A participant on its own domain with the loopback configuration.
class Participant {
 public:
  bool open(dds_domainid_t domain, std::string& error) {
    domain_ = dds_create_domain(domain, loopback_config().c_str());
    if (domain_ < 0) {
      error = std::string("dds_create_domain: ") + dds_strretcode(domain_);
      return false;
    }
    participant_ = dds_create_participant(domain, nullptr, nullptr);
    if (participant_ < 0) {
      error = std::string("dds_create_participant: ") + dds_strretcode(participant_);
      return false;
    }
    return true;
  }
  dds_entity_t get() const { return participant_; }
  ~Participant() {
    if (domain_ > 0) {
      dds_delete(domain_);  // deletes the participant and everything in it
    }
  }

 private:
  dds_entity_t domain_ = 0;
  dds_entity_t participant_ = 0;
};

struct Pair {
  dds_entity_t writer = 0;
  dds_entity_t reader = 0;
  dds_entity_t waitset = 0;
};

/// Creates the writer of `out` and the reader of `in` for `kind` (and a waitset on the reader).
bool create_pair(dds_entity_t participant, const std::string& token, Kind kind, const char* out,
                 const char* in, Pair& pair, std::string& error) {
  dds_qos_t* qos = request_reply_qos();
  const dds_entity_t out_topic = dds_create_topic(
      participant, descriptor(kind), topic_name(token, out, kind).c_str(), qos, nullptr);
  const dds_entity_t in_topic = dds_create_topic(participant, descriptor(kind),
                                                 topic_name(token, in, kind).c_str(), qos, nullptr);
  if (out_topic < 0 || in_topic < 0) {
    dds_delete_qos(qos);
    error = "dds_create_topic failed";
    return false;
  }
  pair.writer = dds_create_writer(participant, out_topic, qos, nullptr);
  pair.reader = dds_create_reader(participant, in_topic, qos, nullptr);
  dds_delete_qos(qos);
  if (pair.writer < 0 || pair.reader < 0) {
    error = "dds_create_writer/reader failed";
    return false;
  }
  pair.waitset = dds_create_waitset(participant);
  const dds_entity_t condition = dds_create_readcondition(pair.reader, DDS_ANY_STATE);
  if (pair.waitset < 0 || condition < 0 ||
      dds_waitset_attach(pair.waitset, condition, static_cast<dds_attach_t>(kind)) < 0) {
    error = "dds waitset failed";
    return false;
  }
  return true;
}

class DdsConnection final : public Connection {
 public:
  DdsConnection(dds_domainid_t domain, std::string token)
      : domain_id_(domain), token_(std::move(token)) {}
  bool open(std::string& error) {
    if (!participant_.open(domain_id_, error)) {
      return false;
    }
    dds_qos_t* qos = request_reply_qos();
    const dds_entity_t topic = dds_create_topic(participant_.get(), &kairos_cubit_Quit_desc,
                                                topic_name(token_, "quit").c_str(), qos, nullptr);
    quit_writer_ = topic < 0 ? topic : dds_create_writer(participant_.get(), topic, qos, nullptr);
    dds_delete_qos(qos);
    if (quit_writer_ < 0) {
      error = "dds quit writer failed";
      return false;
    }
    return true;
  }
  ~DdsConnection() override {
    if (quit_writer_ > 0 && wait_matched(quit_writer_, 0)) {
      const kairos_cubit_Quit quit{0};
      dds_write(quit_writer_, &quit);
      // Give the reliable protocol a moment to deliver it before the participant goes.
      dds_sleepfor(DDS_MSECS(50));
    }
  }

  bool call(const Value& request, Value& reply) override {
    Pair& pair = pairs_[static_cast<int>(request.kind)];
    if (pair.writer == 0) {
      std::string error;
      if (!create_pair(participant_.get(), token_, request.kind, "request", "reply", pair, error)) {
        return fail(error);
      }
      // Discovery: both endpoints must be matched before the first request.
      if (!wait_matched(pair.writer, pair.reader)) {
        return fail("the server's endpoints were not discovered within 10 s");
      }
    }
    if (const dds_return_t written = dds_write(pair.writer, samples_.from(request));
        written != DDS_RETCODE_OK) {
      return fail(std::string("dds_write: ") + dds_strretcode(written));
    }
    const std::int64_t deadline = now_ns() + kCallTimeout;
    for (;;) {
      const dds_return_t triggered = dds_waitset_wait(pair.waitset, nullptr, 0, kCallTimeout);
      if (triggered < 0) {
        return fail(std::string("dds_waitset_wait: ") + dds_strretcode(triggered));
      }
      const int taken = take_one(pair.reader, request.kind, reply);
      if (taken > 0) {
        return true;
      }
      if (taken < 0) {
        return fail("malformed reply");
      }
      if (now_ns() >= deadline) {
        return fail("no reply within 5 s");
      }
    }
  }

  bool has_oneway() const override { return false; }
  bool send_oneway(const Value&) override { return fail("not measured for DDS"); }
  bool oneway_totals(OnewayTotals&) override { return fail("not measured for DDS"); }

 private:
  dds_domainid_t domain_id_;
  std::string token_;
  Participant participant_;
  dds_entity_t quit_writer_ = 0;
  Pair pairs_[kKinds];
  Samples samples_;
};

dds_domainid_t domain_for(const std::string& token) {
  // Domain ids 1..200 map to distinct UDP ports; a run uses one of them.
  unsigned hash = 0;
  for (char c : token) {
    hash = hash * 31 + static_cast<unsigned char>(c);
  }
  return 1 + hash % 200;
}

int serve_dds(const ServeContext& context) {
  const dds_domainid_t domain = domain_for(context.token);
  Participant participant;
  std::string error;
  if (!participant.open(domain, error)) {
    std::fprintf(stderr, "cubit dds server: %s\n", error.c_str());
    return 1;
  }
  Pair pairs[kKinds];
  const dds_entity_t waitset = dds_create_waitset(participant.get());
  for (int k = 0; k < kKinds; ++k) {
    const auto kind = static_cast<Kind>(k);
    if (!create_pair(participant.get(), context.token, kind, "reply", "request", pairs[k], error)) {
      std::fprintf(stderr, "cubit dds server: %s\n", error.c_str());
      return 1;
    }
    // One waitset for every request reader; the attachment says which kind woke it.
    dds_waitset_attach(waitset, dds_create_readcondition(pairs[k].reader, DDS_ANY_STATE), k);
  }
  dds_qos_t* qos = request_reply_qos();
  const dds_entity_t quit_topic =
      dds_create_topic(participant.get(), &kairos_cubit_Quit_desc,
                       topic_name(context.token, "quit").c_str(), qos, nullptr);
  const dds_entity_t quit_reader = dds_create_reader(participant.get(), quit_topic, qos, nullptr);
  dds_delete_qos(qos);
  if (quit_reader < 0 ||
      dds_waitset_attach(waitset, dds_create_readcondition(quit_reader, DDS_ANY_STATE), kKinds) <
          0) {
    std::fprintf(stderr, "cubit dds server: quit reader failed\n");
    return 1;
  }
  if (!announce(context, std::to_string(domain) + " " + context.token)) {
    return 1;
  }
  Samples samples;
  Value value;
  bool matched[kKinds] = {};
  std::int64_t idle_since = now_ns();
  for (;;) {
    dds_attach_t woken[kKinds + 1];
    const dds_return_t n = dds_waitset_wait(waitset, woken, kKinds + 1, DDS_MSECS(100));
    if (n < 0) {
      std::fprintf(stderr, "cubit dds server: %s\n", dds_strretcode(n));
      return 1;
    }
    if (n == 0) {
      if (getppid() == 1 || now_ns() - idle_since > kServerIdleNs) {
        std::fprintf(stderr, "cubit dds server: no client\n");
        return 3;
      }
      continue;
    }
    idle_since = now_ns();
    for (dds_return_t i = 0; i < n && i <= kKinds; ++i) {
      const auto k = static_cast<int>(woken[i]);
      if (k == kKinds) {
        return 0;  // the client left
      }
      const auto kind = static_cast<Kind>(k);
      for (int taken; (taken = take_one(pairs[k].reader, kind, value)) != 0;) {
        if (taken < 0) {
          std::fprintf(stderr, "cubit dds server: malformed request\n");
          return 4;
        }
        // A reply written before the client's reader is discovered would be lost.
        if (!matched[k] && !(matched[k] = wait_matched(pairs[k].writer, 0))) {
          std::fprintf(stderr, "cubit dds server: the client's reader was not discovered\n");
          return 3;
        }
        cube(value);
        dds_write(pairs[k].writer, samples.from(value));
      }
    }
  }
}

class DdsStack final : public Stack {
 public:
  std::string name() const override { return "dds"; }
  std::vector<Transport> transports() const override { return {{"udp", Family::kUdp}}; }

  int serve(const Transport&, const ServeContext& context) override { return serve_dds(context); }

  std::unique_ptr<Connection> connect(const Transport&, const std::string& endpoint,
                                      std::string& error) override {
    const auto space = endpoint.find(' ');
    if (space == std::string::npos) {
      error = "bad endpoint '" + endpoint + "'";
      return nullptr;
    }
    auto connection = std::make_unique<DdsConnection>(
        static_cast<dds_domainid_t>(std::stoul(endpoint.substr(0, space))),
        endpoint.substr(space + 1));
    if (!connection->open(error)) {
      return nullptr;
    }
    return connection;
  }
};

}  // namespace

std::unique_ptr<Stack> make_dds_stack() {
  return std::make_unique<DdsStack>();
}

}  // namespace cubit
