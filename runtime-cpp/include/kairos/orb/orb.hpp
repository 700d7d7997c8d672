// The ORB core: remote calls between nodes, on connections that each carry one priority and are
// set up before the run (the real-time ORB design of TAO: no multiplexing across priorities, a
// reader per band at that band's priority, preallocated buffers).
//
// Client side: a route is one connection to a peer for the requests of one server band from one
// calling lane, so a connection always has exactly one calling thread: it sends, then waits for
// its reply reading the connection itself (TAO's wait-on-read), with no lock and no handoff.
// Server side: an acceptor takes connections in and learns their band from the client's hello;
// the reader of that band reads requests, hands each to the dispatch of its object (which admits
// it to the engine), and the lane that served it sends the reply. Message bodies are opaque here:
// generated stubs and skeletons marshal them (docs/orb.md).
//
// A node listening on udp:host:port takes oneways only, one frame per datagram, on a UDP socket
// per served band (band b at port + b, read by that band's reader): no connection, no hello, no
// reply. Clients send each oneway to it in one send() on a datagram socket of their route.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string_view>

#include <kairos/arrival_budget.hpp>
#include <kairos/capacities.hpp>
#include <kairos/kal/clock.hpp>
#include <kairos/kal/error.hpp>
#include <kairos/kal/socket.hpp>
#include <kairos/kal/thread.hpp>
#include <kairos/kal/tls.hpp>
#include <kairos/orb/frame.hpp>

namespace kairos::orb {

inline constexpr std::size_t kMaxBody = capacity::kBody;
inline constexpr std::size_t kMaxPeers = capacity::kPeers;
inline constexpr std::size_t kMaxRoutes = capacity::kRoutes;
inline constexpr std::size_t kMaxConnections = capacity::kConnections;
inline constexpr std::size_t kMaxRequests = capacity::kRequests;
/// Objects (deployed TMO instances) a server serves.
inline constexpr std::size_t kMaxObjects = 64;
/// Calls one route has in flight at once: one blocking call, or a few non-blocking ones.
inline constexpr std::size_t kMaxPendingCalls = 4;
/// Bands a server serves (one reader thread each).
inline constexpr std::size_t kMaxServedBands = capacity::kBands;
/// Longest node name a hello carries.
inline constexpr std::size_t kMaxNodeName = 32;
static_assert(kMaxNodeName == kal::kMaxIdentityName, "a certificate names a node");
/// Entries of a server's access list: (calling node, object, operation) triples.
inline constexpr std::size_t kMaxPermits = 128;
/// Calling nodes a server's access list names (each has its own share of the connection slots).
inline constexpr std::size_t kMaxCallers = 32;
/// Connection slots kept for connections that have not said hello yet: a new one beyond them
/// closes the one that has waited longest (a model node says hello at once), so that
/// connections that never say it hold no slot of the model's nodes.
inline constexpr std::size_t kGreetingSlots = kMaxConnections / 8 < 2 ? 2 : kMaxConnections / 8;

/// How a call ended, as its caller sees it.
enum class CallStatus : std::uint8_t {
  kOk,               ///< the reply is there
  kUserException,    ///< the server raised a declared exception (Call::exception says which)
  kDeadlineExpired,  ///< no reply by the call's deadline: a reply that comes later is discarded
  kOverloaded,       ///< the server had no room for it, or the connection to it is full (not sent)
  kUnavailable,      ///< the server's engine has ended its run (or could not start it)
  kNoSuchTarget,     ///< the server has no such object or operation
  kMalformed,        ///< the server could not decode the request, or the reply did not decode
  kDisconnected,     ///< no connection to the peer (lost or refused): not sent, or never answered
  kNoRoute,       ///< no route from the calling lane to that peer and band was set up, or a two-way
                  ///< call to a udp: peer (UDP carries oneways only)
  kTooLarge,      ///< the request body exceeds kMaxBody
  kBusy,          ///< the route already has kMaxPendingCalls calls in flight
  kPending,       ///< a non-blocking call whose reply has not come yet
  kRateExceeded,  ///< the server refused it: it came sooner than the method's max-rate allows
  kNotPermitted,  ///< the server refused it: no gate of the calling node names that operation
};

const char* to_string(CallStatus status) noexcept;

/// Where band `band` of a node listening on the udp: endpoint `node` takes its oneways: the same
/// host, at the endpoint's port + `band`. False if that port would pass 65535.
bool band_endpoint(const kal::Endpoint& node, std::uint8_t band, kal::Endpoint& out) noexcept;

/// Where a call goes: a peer (as add_peer numbered it), the server band its service method runs
/// at, and the object and operation there.
struct Target {
  std::uint8_t peer = 0;
  std::uint8_t band = 0;
  std::uint16_t object = 0;
  std::uint16_t operation = 0;
};

/// Counts since start(); read with Orb::counters().
struct OrbCounters {
  // client side
  std::uint64_t calls = 0;             ///< requests sent (two-way and oneway)
  std::uint64_t replies = 0;           ///< replies received in time (ok or a declared exception)
  std::uint64_t deadline_expired = 0;  ///< calls that saw no reply by their deadline
  std::uint64_t late_replies = 0;      ///< replies that came after their call's deadline: dropped
  std::uint64_t failed = 0;    ///< calls ended otherwise (refused by the server, disconnected, ...)
  std::uint64_t connects = 0;  ///< connections established (first ones and reconnections)
  std::uint64_t connect_failures = 0;
  // server side
  std::uint64_t requests = 0;  ///< requests received
  std::uint64_t refused = 0;   ///< answered at once with an error (overloaded, unknown...)
  std::uint64_t replies_sent = 0;
  std::uint64_t replies_dropped = 0;   ///< could not be sent (connection gone or not reading)
  std::uint64_t malformed_frames = 0;  ///< frames that did not decode: their connection is closed
  /// udp: datagrams dropped unread: not a frame, cut short or padded, not a oneway, or on
  /// another band's port. Nothing else is disturbed by them.
  std::uint64_t datagrams_dropped = 0;
  std::uint64_t connections_accepted = 0;
  std::uint64_t connections_closed = 0;
  /// uds: and shm: connections refused because their process runs as another user (root aside)
  /// and is no member of OrbOptions::local_peers's group
  std::uint64_t connections_of_other_users = 0;
  /// requests refused because no gate of their calling node names their operation (permit_only)
  std::uint64_t not_permitted = 0;
  /// connections refused at their hello: the node it names has no entry in the access list
  std::uint64_t unknown_callers = 0;
  /// requests refused because their caller went beyond the rate the model gives it for their
  /// operation (CallerPermit::min_interval), before they took any of the method's max-rate
  std::uint64_t over_budget = 0;
  /// hellos of a node of the access list refused: the connection slots it is given were all in
  /// use and none of its connections idle long enough to be closed for the new one
  std::uint64_t connections_refused = 0;
  /// tcp: connections of an authenticated listener refused before their hello: no TLS handshake,
  /// no certificate of the system's CA, or a hello naming another node than its certificate
  std::uint64_t unauthenticated = 0;
  /// connections of a node closed after kIdleBeforeEviction without a request, to let in a new
  /// connection of the same node (its slots all in use); and those closed before their hello,
  /// to let a newer one say it (kGreetingSlots all in use)
  std::uint64_t connections_evicted = 0;
};

/// What one calling node of the access list did on a server (Orb::caller_counters): the
/// `orb-caller` line a node prints per caller.
struct CallerCounters {
  std::string_view caller;
  std::uint64_t requests = 0;          ///< requests it sent
  std::uint64_t refused = 0;           ///< of them, answered at once with an error
  std::uint64_t not_permitted = 0;     ///< of them, naming an operation no gate of it names
  std::uint64_t over_budget = 0;       ///< of them, beyond its budget
  std::uint32_t connections = 0;       ///< connections it holds now (after hello)
  std::uint32_t connection_slots = 0;  ///< connection slots it is given
  std::uint64_t connections_refused = 0;
  std::uint64_t connections_evicted = 0;  ///< its idle connections closed for a new one of it
};

/// One entry of a server's access list (Orb::permit_only): node `caller` may invoke `operation`
/// of `object` here, at most once per `min_interval`, each request at most `tolerance` before its
/// turn (ArrivalBudget); a zero `min_interval` gives it no budget of its own (the method's
/// max-rate still holds for all callers together).
struct CallerPermit {
  std::string_view caller;
  std::uint16_t object = 0;
  std::uint16_t operation = 0;
  kal::Duration min_interval{0};
  kal::Duration tolerance{0};
  /// The connections `caller` opens to this node (one per server band and calling lane of its
  /// routes here; the largest of its entries counts). It is given that many connection slots
  /// and one more, for a reconnection while the old connection is still closing; 0 gives it an
  /// even share of the slots the callers that say no number leave.
  std::uint8_t connections = 0;
};

class Orb;
struct ServerConnection;

/// One request a server received, from the reader that took it in to the lane that answers it.
/// The dispatch either answers it at once (by returning an error status) or hands it on (by
/// returning kOk), and then exactly one complete() answers it later.
class ServerRequest {
 public:
  const FrameHeader& header() const noexcept { return header_; }
  /// The request's body as received, in the sender's byte order (header().little_endian).
  std::span<const std::byte> body() const noexcept { return {body_, header_.body_size}; }
  /// Where the reply body is written (kMaxBody bytes).
  std::span<std::byte> reply_body() noexcept { return {reply_ + kHeaderSize, kMaxBody}; }
  kal::TimePoint arrival() const noexcept { return arrival_; }
  /// When the caller stops waiting: arrival plus the time it had left when it sent the request.
  /// The budget comes off the wire: a negative one is spent, and one past what the clock holds
  /// saturates (a peer cannot make the sum overflow).
  kal::TimePoint deadline() const noexcept {
    const std::int64_t budget = header_.budget_ns > 0 ? header_.budget_ns : 0;
    const std::int64_t room =
        std::numeric_limits<std::int64_t>::max() - arrival_.time_since_epoch().count();
    return budget >= room ? kal::TimePoint::max() : arrival_ + kal::Duration{budget};
  }
  bool oneway() const noexcept { return header_.kind == FrameKind::kOneway; }

  /// Answers the request with `reply_size` bytes of reply_body() (nothing is sent for a oneway)
  /// and releases it: the request must not be touched afterwards. `exception` is the 1-based
  /// index of the declared exception a kUserException reply carries.
  void complete(ReplyStatus status, std::size_t reply_size, std::uint8_t exception = 0) noexcept;

 private:
  friend class Orb;
  Orb* orb_ = nullptr;
  ServerConnection* connection_ = nullptr;
  FrameHeader header_{};
  kal::TimePoint arrival_{};
  std::byte* body_ = nullptr;
  std::byte* reply_ = nullptr;  ///< kHeaderSize + kMaxBody bytes
  std::atomic<bool> busy_{false};
};

/// Takes one request for an object in: returns kOk once the request is handed on (complete()
/// answers it later), or the status to answer at once (e.g. kNoSuchTarget, kOverloaded).
using Dispatch = ReplyStatus (*)(void* context, ServerRequest& request) noexcept;

struct CallSlot;
struct ClientConnection;

/// One call from the calling lane: begin() gives it a request body to marshal into, invoke()
/// (or send() and poll()) carries it out, and its reply body stays readable until the next call
/// that reuses its slot.
class Call {
 public:
  /// Where the request body is written (kMaxBody bytes).
  std::span<std::byte> request_body() const noexcept { return request_body_; }
  std::span<const std::byte> reply_body() const noexcept;
  /// The byte order of the reply body.
  bool reply_little_endian() const noexcept;
  /// For kUserException: the 1-based index of the exception among the operation's `raises`.
  std::uint8_t exception() const noexcept;
  /// For kOk and kUserException: when the reply was taken from the connection. A blocking call
  /// (invoke) takes it by its deadline, or ends kDeadlineExpired; a non-blocking one whenever
  /// poll() looks.
  kal::TimePoint replied_at() const noexcept;
  CallStatus status() const noexcept { return status_; }

 private:
  friend class Orb;
  ClientConnection* connection_ = nullptr;
  CallSlot* pending_ = nullptr;
  Target target_{};
  std::span<std::byte> request_body_{};
  CallStatus status_ = CallStatus::kNoRoute;
};

struct OrbOptions {
  const char* node = "node";  ///< this node's name, told to servers in each hello
  /// How long start() and a reconnection wait for a peer to accept and answer the hello.
  kal::Duration connect_timeout = std::chrono::milliseconds{200};
  /// After a failed connection, calls fail at once (kDisconnected) for this long before the
  /// next attempt, so a dead peer costs its callers nothing but the failure.
  kal::Duration reconnect_interval = std::chrono::milliseconds{50};
  bool real_time = true;  ///< readers at real-time priorities where the OS permits
  /// The CPU the acceptor and the band readers run on (-1: anywhere): a node's own processor,
  /// so that on sim two nodes in one process never share one (kal::ThreadAttributes::cpu).
  int cpu = -1;
  /// The node's lanes run by deadline (preemptive EDF): on Linux the band readers then run under
  /// SCHED_DEADLINE with kal::kHandoffReservation instead of their band's SCHED_FIFO priority, so
  /// that a request is read while the lanes keep the CPU busy.
  bool lanes_by_deadline = false;
  /// The node's identity (TLS 1.3 with the system CA's certificates), for listening on and
  /// calling authenticated tcp: endpoints (listen, add_peer); loaded once, outliving the ORB.
  const kal::TlsIdentity* identity = nullptr;
  /// Who besides the node's user may connect to a uds: or shm: endpoint it listens on: this
  /// group's members (kal::LocalPeers; the deployment's --socket-group), or no one.
  kal::LocalPeers local_peers{};
};

class Orb {
 public:
  explicit Orb(OrbOptions options = {}) noexcept;
  Orb(const Orb&) = delete;
  Orb& operator=(const Orb&) = delete;
  ~Orb();

  // ------------------------------------------------------------ configuration (before start)
  /// Listens on `endpoint` (uds:/path, tcp:host:port, shm:name) for calls from other nodes; on
  /// udp:host:port, for oneways only, each served band on a port of its own (band_endpoint).
  ///
  /// `authenticate` (tcp: only): every connection must first complete TLS 1.3 with a certificate
  /// of the system's CA, and its hello name the node that certificate names; the others are
  /// refused (`unauthenticated`). Needs OrbOptions::identity (kInvalidArgument without).
  kal::Status listen(std::string_view endpoint, bool authenticate = false) noexcept;
  /// Serves `object` with `dispatch`, which checks each request's operation and band (a request
  /// travels on the band of the service method it calls).
  kal::Status add_object(std::uint16_t object, Dispatch dispatch, void* context) noexcept;
  /// Lets only these callers invoke what they name: the model as the access list, an entry per
  /// gate of another node that calls here (`caller` as its hello names it). From then on a hello
  /// naming a node with no entry is refused (counted in `unknown_callers`), and a request that
  /// matches no entry is refused (ReplyStatus::kNotPermitted), counted in `not_permitted` and
  /// warned of; no entries refuse every connection. A request beyond its entry's budget is
  /// refused (ReplyStatus::kRateExceeded), counted in `over_budget` and warned of, so that a
  /// caller that floods takes nothing from the others' share. A server that never calls
  /// this takes every request, as before. kCapacityExceeded past kMaxPermits, kInvalidArgument
  /// for a name longer than kMaxNodeName, or after start().
  kal::Status permit_only(std::span<const CallerPermit> permits) noexcept;
  /// Takes requests on `band` (the band of some service method served here): start() creates its
  /// reader thread, at that band.
  kal::Status serve_band(kal::PriorityBand band) noexcept;
  /// Names a peer node at `endpoint`; `peer` is its number in Target. A udp: peer takes oneways
  /// only: a two-way call to it fails kNoRoute.
  ///
  /// `authenticated_as` (tcp: only; empty: none): its connections run TLS 1.3 and the peer must
  /// prove with a certificate of the system's CA that it is that node; needs
  /// OrbOptions::identity.
  kal::Status add_peer(std::string_view endpoint, std::uint8_t& peer,
                       std::string_view authenticated_as = {}) noexcept;
  /// Sets up the connection for calls from lane (`core`, `caller_band`, `caller_slot`) to `band`
  /// of `peer` (the slot tells apart the lanes of one band under preemptive EDF:
  /// LaneIdentity::slot).
  kal::Status add_route(std::uint8_t peer, std::uint8_t band, std::uint8_t core,
                        kal::PriorityBand caller_band, std::uint8_t caller_slot = 0) noexcept;

  /// Allocates every buffer, starts the acceptor and one reader per served band, and connects
  /// every route (a peer that is not up yet is connected on first use). After it, nothing
  /// allocates.
  kal::Status start() noexcept;
  /// Waits until every route is connected or `until` passes, trying each again every
  /// reconnect_interval: nodes of one system that start together meet before their engines begin.
  /// True when all are connected.
  bool connect_all(kal::TimePoint until) noexcept;
  /// Stops the threads and closes every connection; calls after it fail.
  void stop() noexcept;

  // ------------------------------------------------------------ calls (from the calling lane)
  /// Prepares a call from the calling thread's lane (current_lane()) to `target`; the returned
  /// call's status is kNoRoute, kDisconnected or kBusy if it cannot be made, else kPending.
  Call begin(const Target& target) noexcept;
  /// Sends the request (`body_size` bytes of request_body()) and waits for its reply until
  /// `deadline`: a two-way call, blocking.
  CallStatus invoke(Call& call, std::size_t body_size, kal::TimePoint deadline) noexcept;
  /// Sends the request without waiting: poll() collects the reply later. With `oneway`, no reply
  /// is expected and the call is over once sent (kOk).
  CallStatus send(Call& call, std::size_t body_size, kal::TimePoint deadline,
                  bool oneway = false) noexcept;
  /// Reads what has arrived without blocking; kPending until the reply or the deadline.
  CallStatus poll(Call& call) noexcept;
  /// Gives up a non-blocking call (its reply, if it comes, is dropped and counted late).
  void abandon(Call& call) noexcept;

  OrbCounters counters() const noexcept;
  /// The counts of each calling node of the access list (permit_only), in the order of its
  /// first entry, into `out`; returns how many there are (all of them, even past out's size).
  std::size_t caller_counters(std::span<CallerCounters> out) const noexcept;

 private:
  friend class ServerRequest;
  struct Reader;

  static void acceptor_main(void* self) noexcept;
  static void reader_main(void* reader) noexcept;

  ClientConnection* route_for(const Target& target) noexcept;
  bool connect(ClientConnection& connection) noexcept;
  void disconnect(ClientConnection& connection) noexcept;
  CallStatus transmit(Call& call, std::size_t body_size, kal::TimePoint deadline,
                      bool oneway) noexcept;
  /// Reads and files every complete reply on `connection` (waiting for one until `wait_until`,
  /// if given); false if the connection failed.
  bool take_replies(ClientConnection& connection,
                    kal::TimePoint wait_until = kal::TimePoint::min()) noexcept;
  void finish(Call& call) noexcept;

  void accept_connections() noexcept;
  void greet(ServerConnection& connection, kal::Poller& acceptor) noexcept;
  /// Closes a connection that has not said hello and frees its slot.
  void drop_greeting(ServerConnection& connection, kal::Poller& acceptor) noexcept;
  void serve(Reader& reader) noexcept;
  /// Dispatches the complete requests on `connection`, at most kFramesPerTurn of them, reading
  /// the socket first when none is left from before; false if it must be closed.
  bool take_requests(ServerConnection& connection) noexcept;
  /// One turn of `connection` (take_requests), closing it if it must be.
  void take_turn(ServerConnection& connection) noexcept;
  /// A turn for each connection of `reader` that has frames left from its last turn.
  void take_backlog(Reader& reader) noexcept;
  /// Stops reading `connection` until its paused_until (a request beyond its caller's budget).
  void pause(ServerConnection& connection) noexcept;
  /// Reads again the connections of `reader` whose pause is over.
  void resume_paused(Reader& reader) noexcept;
  /// Closes this reader's connections whose frame has stayed unfinished past
  /// kPartialFrameTimeout (slowloris: a frame announced and never finished holds its slot).
  void close_unfinished_frames(Reader& reader) noexcept;
  /// Binds a served band's UDP socket (listening on udp:) and has its reader watch it.
  kal::Status bind_datagrams(Reader& reader) noexcept;
  /// Reads the datagrams waiting on a band's UDP socket, dispatching each oneway frame.
  void take_datagrams(Reader& reader) noexcept;
  void drop_datagram(Reader& reader, const char* why) noexcept;
  void handle_request(ServerConnection& connection, const FrameHeader& header,
                      std::span<const std::byte> body) noexcept;
  void send_error(ServerConnection& connection, const FrameHeader& request,
                  ReplyStatus status) noexcept;
  void close_connection(ServerConnection& connection) noexcept;
  void release(ServerConnection& connection) noexcept;
  void finish_closing(ServerConnection& connection) noexcept;
  enum class Sent : std::uint8_t { kWhole, kNothing, kBroken };
  Sent send_frame(kal::Socket& socket, std::span<const std::byte> frame) noexcept;

  struct PermitEntry {
    std::array<char, kMaxNodeName + 1> caller{};
    std::uint8_t caller_index = 0;  ///< its node in callers_
    std::uint16_t object = 0;
    std::uint16_t operation = 0;
    ArrivalBudget budget;  ///< the caller's rate for the operation (CallerPermit::min_interval)
  };
  struct Object {
    Dispatch dispatch = nullptr;
    void* context = nullptr;
  };
  struct Peer {
    kal::Endpoint endpoint{};
    std::array<char, 112> name{};  ///< its endpoint as the model writes it, for the log
    /// The node its certificate must name (TLS), or "" when its connections are not secured.
    std::array<char, kMaxNodeName + 1> identity{};
    /// Set when a connection to it is lost, cleared when one is made again: each loss and each
    /// return is said once, whichever of its connections (one per band and lane) finds it.
    std::atomic<bool> lost{false};
  };
  /// Whether connections on `endpoint` can run TLS: tcp:, and the node's identity loaded.
  bool can_authenticate(const kal::Endpoint& endpoint) const noexcept;
  /// Says, once per event, that a peer was lost or is back, with the time (kal::report: queued,
  /// so a lane that finds it never waits for the log).
  void say_peer(std::uint8_t peer, const char* what) const noexcept;
  /// The first entry of the access list that matches, or nullptr.
  template <typename Match>
  PermitEntry* find_permit(Match match) noexcept {
    for (std::size_t i = 0; i < permit_count_; ++i) {
      if (match(permits_[i])) {
        return &permits_[i];
      }
    }
    return nullptr;
  }
  struct Counter {
    std::atomic<std::uint64_t> value{0};
    void add() noexcept { value.fetch_add(1, std::memory_order_relaxed); }
  };
  /// A calling node of the access list: its share of the connection slots and its counts.
  struct Caller {
    std::array<char, kMaxNodeName + 1> name{};
    std::uint32_t connection_slots = 0;
    /// Its connections after hello, not closing: taken by the acceptor, given back by whoever
    /// closes one.
    std::atomic<std::uint32_t> connections{0};
    Counter requests, refused, not_permitted, over_budget, connections_refused, connections_evicted;
  };
  /// The index in callers_ of the node the access list names `caller`, or kNoCaller (also for
  /// everyone, without an access list).
  std::uint8_t caller_index(const char* caller) const noexcept;
  /// Whether the access list names `caller` at all (everyone, without one).
  bool known_caller(const char* caller) noexcept;
  /// Makes room for a new connection of caller `index` among its slots: closes its connection
  /// that has gone longest without a request, if that is longer than kIdleBeforeEviction.
  /// False when there is none: the new one is refused.
  bool make_room_for(std::uint8_t index) noexcept;
  /// Makes room among the kGreetingSlots for a new connection: closes the one that has waited
  /// longest for its hello.
  void make_greeting_room(kal::Poller& acceptor) noexcept;
  /// Gives `connection`'s place among its node's connections back (Caller::connections), once:
  /// false when it holds none (not counted, or given back already).
  bool uncount(ServerConnection& connection) noexcept;
  /// A request of `connection` answered at once with an error: counted for its node too.
  void count_refused(const ServerConnection& connection) noexcept;
  /// Whether `caller` may invoke `operation` of `object` (permit_only; everyone, without it) and
  /// its request now is within its budget; nullptr for a udp: datagram, which names no caller
  /// (it may invoke what some node may, within the method's max-rate). Answers a refused request.
  bool admit_caller(ServerConnection& connection, const FrameHeader& request,
                    kal::TimePoint arrival) noexcept;
  OrbOptions options_;
  bool started_ = false;
  std::atomic<bool> stopping_{false};

  bool listening_ = false;
  bool authenticate_ = false;  ///< connections of listener_ must prove a node by TLS first
  kal::Endpoint listen_endpoint_{};
  kal::Socket listener_;
  kal::Thread acceptor_;
  std::array<Object, kMaxObjects> objects_{};
  std::array<PermitEntry, kMaxPermits> permits_{};
  std::size_t permit_count_ = 0;
  bool callers_limited_ = false;  ///< permit_only was called: only its entries pass
  std::array<Caller, kMaxCallers> callers_{};
  std::size_t caller_count_ = 0;
  std::array<std::unique_ptr<Reader>, kMaxServedBands> readers_;
  std::size_t reader_count_ = 0;
  std::unique_ptr<ServerConnection[]> connections_;
  std::unique_ptr<ServerRequest[]> requests_;
  std::unique_ptr<std::byte[]> request_storage_;

  std::array<Peer, kMaxPeers> peers_{};
  std::size_t peer_count_ = 0;
  std::array<std::unique_ptr<ClientConnection>, kMaxRoutes> routes_;
  std::size_t route_count_ = 0;

  Counter calls_, replies_, deadline_expired_, late_replies_, failed_, connects_, connect_failures_,
      requests_received_, refused_, replies_sent_, replies_dropped_, malformed_frames_,
      datagrams_dropped_, connections_accepted_, connections_closed_, connections_of_other_users_,
      not_permitted_, unknown_callers_, over_budget_, connections_refused_, connections_evicted_,
      unauthenticated_;
};

}  // namespace kairos::orb
