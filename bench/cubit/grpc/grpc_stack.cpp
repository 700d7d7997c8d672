// gRPC C++ (Debian's libgrpc++) doing the cubit operations: a synchronous server and a
// blocking client, over a Unix socket (`unix:` target), over TCP loopback, and over TCP with TLS
// and a client certificate required (tcp-tls: the keys the Kairos stack's tcp-tls uses, one CA,
// the server's certificate naming it, as a Kairos node's does).
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>

#include "../../../runtime-cpp/tools/openssl_keys.hpp"

#include "../process.hpp"
#include "../stack.hpp"
#include "cubit.grpc.pb.h"

namespace cubit {
namespace {

namespace pb = kairos::bench::cubit;
using namespace std::chrono_literals;

constexpr auto kCallTimeout = 5s;
constexpr std::int64_t kServerIdleNs = 60'000'000'000;

grpc::Status invalid(const char* what) {
  return {grpc::StatusCode::INVALID_ARGUMENT, what};
}

/// Reads a wire value into a narrow type, refusing what does not fit.
template <typename Narrow>
bool narrow(std::int64_t wide, Narrow& out) {
  if (wide < std::numeric_limits<Narrow>::min() || wide > std::numeric_limits<Narrow>::max()) {
    return false;
  }
  out = static_cast<Narrow>(wide);
  return true;
}

class CubitService final : public pb::Cubit::Service {
 public:
  grpc::Status CubeOctet(grpc::ServerContext*, const pb::Octet* in, pb::Octet* out) override {
    touch();
    std::uint8_t x = 0;
    if (!narrow(in->value(), x)) {
      return invalid("octet out of range");
    }
    out->set_value(cube(x));
    return grpc::Status::OK;
  }
  grpc::Status CubeShort(grpc::ServerContext*, const pb::Short* in, pb::Short* out) override {
    touch();
    std::int16_t x = 0;
    if (!narrow(in->value(), x)) {
      return invalid("short out of range");
    }
    out->set_value(cube(x));
    return grpc::Status::OK;
  }
  grpc::Status CubeLong(grpc::ServerContext*, const pb::Long* in, pb::Long* out) override {
    touch();
    out->set_value(cube(in->value()));
    return grpc::Status::OK;
  }
  grpc::Status CubeComposite(grpc::ServerContext*, const pb::Composite* in,
                             pb::Composite* out) override {
    touch();
    Composite c{};
    if (!narrow(in->octet(), c.octet) || !narrow(in->shrt(), c.shrt)) {
      return invalid("struct member out of range");
    }
    out->set_octet(cube(c.octet));
    out->set_shrt(cube(c.shrt));
    out->set_lng(cube(in->lng()));
    out->set_dbl(cube(in->dbl()));
    return grpc::Status::OK;
  }
  grpc::Status CubeSequence(grpc::ServerContext*, const pb::Sequence* in,
                            pb::Sequence* out) override {
    touch();
    if (in->values_size() > static_cast<int>(kMaxSequence)) {
      return invalid("sequence too long");
    }
    out->mutable_values()->Reserve(in->values_size());
    for (std::int32_t x : in->values()) {
      out->add_values(cube(x));
    }
    return grpc::Status::OK;
  }
  grpc::Status Oneway(grpc::ServerContext*, grpc::ServerReader<pb::Any>* reader,
                      pb::Received* out) override {
    pb::Any message;
    Value value;
    while (reader->Read(&message)) {
      touch();
      if (!to_value(message, value)) {
        return invalid("malformed oneway message");
      }
      cube(value);
      oneway_count_.fetch_add(1);
      oneway_digest_.fetch_add(digest(value));
    }
    out->set_count(oneway_count_.load());
    out->set_digest(oneway_digest_.load());
    return grpc::Status::OK;
  }
  grpc::Status Quit(grpc::ServerContext*, const pb::Empty*, pb::Empty*) override {
    quit_.store(true);
    return grpc::Status::OK;
  }

  bool quit() const { return quit_.load(); }
  std::int64_t last_activity_ns() const { return last_activity_ns_.load(); }

 private:
  static bool to_value(const pb::Any& message, Value& value) {
    switch (message.value_case()) {
      case pb::Any::kOctet:
        value.kind = Kind::kOctet;
        return narrow(message.octet().value(), value.octet);
      case pb::Any::kShrt:
        value.kind = Kind::kShort;
        return narrow(message.shrt().value(), value.shrt);
      case pb::Any::kLng:
        value.kind = Kind::kLong;
        value.lng = message.lng().value();
        return true;
      case pb::Any::kComposite:
        value.kind = Kind::kComposite;
        value.composite.lng = message.composite().lng();
        value.composite.dbl = message.composite().dbl();
        return narrow(message.composite().octet(), value.composite.octet) &&
               narrow(message.composite().shrt(), value.composite.shrt);
      case pb::Any::VALUE_NOT_SET:
        break;
    }
    return false;
  }
  // Coarse, for the idle timeout only.
  void touch() { last_activity_ns_.store(now_ns(), std::memory_order_relaxed); }

  std::atomic<bool> quit_{false};
  std::atomic<std::uint64_t> oneway_count_{0};
  std::atomic<std::uint64_t> oneway_digest_{0};
  std::atomic<std::int64_t> last_activity_ns_{now_ns()};
};

class GrpcConnection final : public Connection {
 public:
  explicit GrpcConnection(std::shared_ptr<grpc::Channel> channel)
      : stub_(pb::Cubit::NewStub(channel)) {}
  ~GrpcConnection() override {
    OnewayTotals ignored;
    if (stream_) {
      finish_stream(ignored);
    }
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 1s);
    pb::Empty none;
    pb::Empty answer;
    stub_->Quit(&context, none, &answer);
  }

  bool call(const Value& request, Value& reply) override {
    // A fresh context per call is what the gRPC API asks for.
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
    grpc::Status status;
    reply.kind = request.kind;
    switch (request.kind) {
      case Kind::kOctet: {
        octet_.set_value(request.octet);
        status = stub_->CubeOctet(&context, octet_, &octet_reply_);
        reply.octet = static_cast<std::uint8_t>(octet_reply_.value());
        break;
      }
      case Kind::kShort: {
        short_.set_value(request.shrt);
        status = stub_->CubeShort(&context, short_, &short_reply_);
        reply.shrt = static_cast<std::int16_t>(short_reply_.value());
        break;
      }
      case Kind::kLong: {
        long_.set_value(request.lng);
        status = stub_->CubeLong(&context, long_, &long_reply_);
        reply.lng = long_reply_.value();
        break;
      }
      case Kind::kComposite: {
        set(request.composite, composite_);
        status = stub_->CubeComposite(&context, composite_, &composite_reply_);
        reply.composite.octet = static_cast<std::uint8_t>(composite_reply_.octet());
        reply.composite.shrt = static_cast<std::int16_t>(composite_reply_.shrt());
        reply.composite.lng = composite_reply_.lng();
        reply.composite.dbl = composite_reply_.dbl();
        break;
      }
      case Kind::kSequence: {
        sequence_.mutable_values()->Assign(request.sequence.begin(),
                                           request.sequence.begin() + request.length);
        status = stub_->CubeSequence(&context, sequence_, &sequence_reply_);
        const int n = sequence_reply_.values_size();
        if (status.ok() && n > static_cast<int>(kMaxSequence)) {
          return fail("reply sequence too long");
        }
        reply.length = static_cast<std::uint32_t>(n);
        for (int i = 0; i < n; ++i) {
          reply.sequence[static_cast<std::size_t>(i)] = sequence_reply_.values(i);
        }
        break;
      }
    }
    return status.ok() || fail(status.error_message());
  }

  bool send_oneway(const Value& request) override {
    if (!stream_) {
      stream_context_ = std::make_unique<grpc::ClientContext>();
      stream_context_->set_deadline(std::chrono::system_clock::now() + 120s);
      stream_ = stub_->Oneway(stream_context_.get(), &received_);
    }
    any_.Clear();
    switch (request.kind) {
      case Kind::kOctet:
        any_.mutable_octet()->set_value(request.octet);
        break;
      case Kind::kShort:
        any_.mutable_shrt()->set_value(request.shrt);
        break;
      case Kind::kLong:
        any_.mutable_lng()->set_value(request.lng);
        break;
      case Kind::kComposite:
        set(request.composite, *any_.mutable_composite());
        break;
      case Kind::kSequence:
        return fail("oneway sequences are not measured");
    }
    return stream_->Write(any_) || fail("the oneway stream broke");
  }

  bool oneway_totals(OnewayTotals& totals) override {
    if (!stream_) {
      // An empty stream: its answer is what the server has received so far.
      stream_context_ = std::make_unique<grpc::ClientContext>();
      stream_context_->set_deadline(std::chrono::system_clock::now() + kCallTimeout);
      stream_ = stub_->Oneway(stream_context_.get(), &received_);
    }
    return finish_stream(totals);
  }

 private:
  static void set(const Composite& from, pb::Composite& to) {
    to.set_octet(from.octet);
    to.set_shrt(from.shrt);
    to.set_lng(from.lng);
    to.set_dbl(from.dbl);
  }

  bool finish_stream(OnewayTotals& totals) {
    stream_->WritesDone();
    const grpc::Status status = stream_->Finish();
    stream_.reset();
    stream_context_.reset();
    if (!status.ok()) {
      return fail(status.error_message());
    }
    totals.count = received_.count();
    totals.digest = received_.digest();
    return true;
  }

  std::unique_ptr<pb::Cubit::Stub> stub_;
  // Messages are reused from call to call, as a careful gRPC client would.
  pb::Octet octet_, octet_reply_;
  pb::Short short_, short_reply_;
  pb::Long long_, long_reply_;
  pb::Composite composite_, composite_reply_;
  pb::Sequence sequence_, sequence_reply_;
  pb::Any any_;
  pb::Received received_;
  std::unique_ptr<grpc::ClientContext> stream_context_;
  std::unique_ptr<grpc::ClientWriter<pb::Any>> stream_;
};

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class GrpcStack final : public Stack {
 public:
  std::string name() const override { return "grpc"; }
  std::vector<Transport> transports() const override {
    return {{"uds", Family::kUds}, {"tcp", Family::kTcp}, {"tcp-tls", Family::kTcp}};
  }

  int serve(const Transport& transport, const ServeContext& context) override {
    CubitService service;
    grpc::ServerBuilder builder;
    int port = 0;
    std::string endpoint;
    if (transport.family == Family::kUds) {
      endpoint = "unix:" + context.run_dir + "/" + context.token + ".grpc.sock";
      builder.AddListeningPort(endpoint, grpc::InsecureServerCredentials());
    } else if (transport.name == "tcp-tls") {
      const std::string keys = context.run_dir + "/grpc-keys-" + context.token;
      if (!openssl_keys::make(keys, {"cubit-server", "cubit-client"})) {
        std::fprintf(stderr, "cubit grpc server: cannot make its keys in %s\n", keys.c_str());
        return 1;
      }
      grpc::SslServerCredentialsOptions tls(
          GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
      tls.pem_root_certs = file_text(keys + "/ca.pem");
      tls.pem_key_cert_pairs.push_back(
          {file_text(keys + "/cubit-server.key"), file_text(keys + "/cubit-server.pem")});
      builder.AddListeningPort("127.0.0.1:0", grpc::SslServerCredentials(tls), &port);
      endpoint = "keys=" + keys + "|";
    } else {
      builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    }
    builder.RegisterService(&service);
    std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
    if (!server || (transport.family == Family::kTcp && port == 0)) {
      std::fprintf(stderr, "cubit grpc server: cannot listen\n");
      return 1;
    }
    if (transport.family == Family::kTcp) {
      endpoint += "127.0.0.1:" + std::to_string(port);
    }
    if (!announce(context, endpoint)) {
      return 1;
    }
    int status = 0;
    // The synchronous server serves on its own threads; this one watches for the end.
    while (!service.quit()) {
      std::this_thread::sleep_for(20ms);
      if (getppid() == 1 || now_ns() - service.last_activity_ns() > kServerIdleNs) {
        std::fprintf(stderr, "cubit grpc server: no client\n");
        status = 3;
        break;
      }
    }
    server->Shutdown(std::chrono::system_clock::now() + 1s);
    return status;
  }

  std::unique_ptr<Connection> connect(const Transport&, const std::string& announced,
                                      std::string& error) override {
    std::string endpoint = announced;
    std::shared_ptr<grpc::Channel> channel;
    if (endpoint.rfind("keys=", 0) == 0) {
      // "keys=DIR|host:port": the client proves cubit-client, and checks that the server's
      // certificate names cubit-server.
      const auto bar = endpoint.find('|');
      const std::string keys = endpoint.substr(5, bar - 5);
      endpoint = endpoint.substr(bar + 1);
      grpc::SslCredentialsOptions tls;
      tls.pem_root_certs = file_text(keys + "/ca.pem");
      tls.pem_private_key = file_text(keys + "/cubit-client.key");
      tls.pem_cert_chain = file_text(keys + "/cubit-client.pem");
      grpc::ChannelArguments arguments;
      arguments.SetSslTargetNameOverride("cubit-server");
      channel = grpc::CreateCustomChannel(endpoint, grpc::SslCredentials(tls), arguments);
    } else {
      channel = grpc::CreateChannel(endpoint, grpc::InsecureChannelCredentials());
    }
    if (!channel->WaitForConnected(std::chrono::system_clock::now() + 10s)) {
      error = "cannot connect to " + endpoint;
      return nullptr;
    }
    return std::make_unique<GrpcConnection>(channel);
  }
};

}  // namespace

std::unique_ptr<Stack> make_grpc_stack() {
  return std::make_unique<GrpcStack>();
}

}  // namespace cubit
