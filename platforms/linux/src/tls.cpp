// TLS 1.3 on tcp: connections. OpenSSL makes the handshake: mutual authentication with
// certificates of the system's CA, a P-256 key per node. The records after it are sealed and
// opened here, with OpenSSL's AES-128-GCM and the traffic secrets the handshake agreed, one
// direction each, as the kernel's TLS (kTLS) would do them: a band's reader opens what arrives
// while the lanes of several cores seal their replies, which one SSL object cannot allow (OpenSSL
// forbids using it from two threads at once), and neither direction waits for the other. This
// kernel has no kTLS; the record format is RFC 8446's, so any TLS 1.3 peer with a certificate of
// the CA interoperates (tests/e2e/test_orb_tls.py calls a node from Python's ssl module).
#include "tls.hpp"

#include <kairos/kal/tls.hpp>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

namespace kairos::kal {

namespace {
constexpr std::size_t kKeySize = 16;  // AES-128-GCM, the one suite offered
constexpr std::size_t kIvSize = 12;
constexpr std::size_t kTagSize = 16;
constexpr std::size_t kSecretSize = 32;  // SHA-256's
constexpr std::size_t kRecordHeader = 5;
constexpr std::size_t kMaxPlaintext = 16384;                 // RFC 8446, 5.1
constexpr std::size_t kMaxCiphertext = kMaxPlaintext + 256;  // 5.2
constexpr std::size_t kMaxRecord = kRecordHeader + kMaxCiphertext;
constexpr std::uint8_t kHandshake = 22;
constexpr std::uint8_t kApplicationData = 23;
constexpr std::uint8_t kNewSessionTicket = 4;

/// One direction's record protection: its key schedule, static IV and next sequence number.
struct Direction {
  EVP_CIPHER_CTX* cipher = nullptr;
  std::uint8_t iv[kIvSize] = {};
  std::uint64_t sequence = 0;

  /// The nonce of the next record: the IV with the sequence number XORed into its end.
  void nonce(std::uint8_t (&out)[kIvSize]) const noexcept {
    std::memcpy(out, iv, kIvSize);
    for (std::size_t i = 0; i < 8; ++i) {
      out[kIvSize - 1 - i] ^= static_cast<std::uint8_t>(sequence >> (8 * i));
    }
  }
};

/// The label text of a secret in OpenSSL's key log lines.
constexpr const char* kClientSecretLabel = "CLIENT_TRAFFIC_SECRET_0 ";
constexpr const char* kServerSecretLabel = "SERVER_TRAFFIC_SECRET_0 ";
}  // namespace

struct TlsChannel {
  SSL* ssl = nullptr;  ///< during the handshake only
  bool established = false;
  bool failed = false;  ///< a record did not open, or the peer ended: receive says -1 from then
  std::uint8_t client_secret[kSecretSize] = {};
  std::uint8_t server_secret[kSecretSize] = {};
  bool have_client_secret = false;
  bool have_server_secret = false;
  char peer[kMaxIdentityName + 1] = {};
  Direction sending;
  Direction receiving;
  /// Senders take turns: a record's sequence number is its place on the wire. Priority
  /// inheritance: a lane waits at most for one record sealed and sent by a lane it outranks.
  pthread_mutex_t send_lock{};
  /// Bytes read from the kernel: records not yet opened in [in_begin, in_end); the plaintext of
  /// the last one opened (in place) in [plain_begin, plain_end), handed over first.
  std::byte in[2 * kMaxRecord] = {};
  std::size_t in_begin = 0;
  std::size_t in_end = 0;
  std::size_t plain_begin = 0;
  std::size_t plain_end = 0;
  std::byte out[kMaxRecord] = {};

  TlsChannel() noexcept {
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_setprotocol(&attributes, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&send_lock, &attributes);
    pthread_mutexattr_destroy(&attributes);
  }
  ~TlsChannel() {
    SSL_free(ssl);
    EVP_CIPHER_CTX_free(sending.cipher);
    EVP_CIPHER_CTX_free(receiving.cipher);
    OPENSSL_cleanse(client_secret, sizeof client_secret);
    OPENSSL_cleanse(server_secret, sizeof server_secret);
    pthread_mutex_destroy(&send_lock);
  }
};

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

/// Reads `size` bytes of hex at `text` into `out`; false if malformed.
bool read_hex(const char* text, std::uint8_t* out, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) {
    const int high = hex_digit(text[2 * i]);
    const int low = high < 0 ? -1 : hex_digit(text[2 * i + 1]);
    if (low < 0) {
      return false;
    }
    out[i] = static_cast<std::uint8_t>(high * 16 + low);
  }
  return text[2 * size] == '\0' || text[2 * size] == '\n';
}

/// OpenSSL's key log: how its public API gives the application traffic secrets a record layer of
/// one's own needs (its kTLS support takes them from inside). Lines: LABEL CLIENT_RANDOM SECRET.
void take_secret(const SSL* ssl, const char* line) {
  auto* channel = static_cast<TlsChannel*>(SSL_get_app_data(ssl));
  if (channel == nullptr) {
    return;
  }
  const bool client = std::strncmp(line, kClientSecretLabel, std::strlen(kClientSecretLabel)) == 0;
  const bool server = std::strncmp(line, kServerSecretLabel, std::strlen(kServerSecretLabel)) == 0;
  if (!client && !server) {
    return;
  }
  const char* random = std::strchr(line, ' ');
  const char* secret = random == nullptr ? nullptr : std::strchr(random + 1, ' ');
  if (secret == nullptr) {
    return;
  }
  if (client) {
    channel->have_client_secret = read_hex(secret + 1, channel->client_secret, kSecretSize);
  } else {
    channel->have_server_secret = read_hex(secret + 1, channel->server_secret, kSecretSize);
  }
}

/// HKDF-Expand-Label(secret, label, "", size) of RFC 8446 7.1, with SHA-256.
bool expand_label(const std::uint8_t* secret, const char* label, std::uint8_t* out,
                  std::size_t size) {
  std::uint8_t info[64];
  const std::size_t label_size = std::strlen(label);
  std::size_t at = 0;
  info[at++] = static_cast<std::uint8_t>(size >> 8);
  info[at++] = static_cast<std::uint8_t>(size);
  info[at++] = static_cast<std::uint8_t>(6 + label_size);
  std::memcpy(info + at, "tls13 ", 6);
  at += 6;
  std::memcpy(info + at, label, label_size);
  at += label_size;
  info[at++] = 0;  // no context
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  EVP_KDF_CTX* context = kdf == nullptr ? nullptr : EVP_KDF_CTX_new(kdf);
  EVP_KDF_free(kdf);
  if (context == nullptr) {
    return false;
  }
  int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
  char digest[] = "SHA256";
  const OSSL_PARAM parameters[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<std::uint8_t*>(secret),
                                        kSecretSize),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info, at), OSSL_PARAM_construct_end()};
  const bool derived = EVP_KDF_derive(context, out, size, parameters) == 1;
  EVP_KDF_CTX_free(context);
  return derived;
}

bool set_up(Direction& direction, const std::uint8_t* secret, bool encrypt) {
  std::uint8_t key[kKeySize];
  if (!expand_label(secret, "key", key, kKeySize) ||
      !expand_label(secret, "iv", direction.iv, kIvSize)) {
    return false;
  }
  direction.cipher = EVP_CIPHER_CTX_new();
  const bool made =
      direction.cipher != nullptr && EVP_CipherInit_ex(direction.cipher, EVP_aes_128_gcm(), nullptr,
                                                       key, nullptr, encrypt ? 1 : 0) == 1;
  OPENSSL_cleanse(key, sizeof key);
  return made;
}

/// The certificate's common name into `out`; false when it has none that fits.
bool common_name(X509* certificate, char (&out)[kMaxIdentityName + 1]) {
  out[0] = '\0';
  if (certificate == nullptr) {
    return false;
  }
  char name[256];
  const int size = X509_NAME_get_text_by_NID(X509_get_subject_name(certificate), NID_commonName,
                                             name, sizeof name);
  if (size <= 0 || static_cast<std::size_t>(size) > kMaxIdentityName) {
    return false;
  }
  std::memcpy(out, name, static_cast<std::size_t>(size) + 1);
  return true;
}

/// After a handshake: the peer's name, and each direction's keys; the SSL object is done with.
Status take_over(TlsChannel& channel, bool server) {
  SSL* ssl = channel.ssl;
  const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl);
  // Bytes OpenSSL read past the handshake would be lost to the records here: it reads no more
  // than a record at a time without read-ahead, so this is a peer that sent before its turn.
  if (SSL_has_pending(ssl) != 0 || cipher == nullptr ||
      SSL_CIPHER_get_id(cipher) != TLS1_3_CK_AES_128_GCM_SHA256 || !channel.have_client_secret ||
      !channel.have_server_secret) {
    return Status::kPlatformError;
  }
  if (!common_name(SSL_get0_peer_certificate(ssl), channel.peer)) {
    return Status::kPermissionDenied;
  }
  const std::uint8_t* ours = server ? channel.server_secret : channel.client_secret;
  const std::uint8_t* theirs = server ? channel.client_secret : channel.server_secret;
  if (!set_up(channel.sending, ours, true) || !set_up(channel.receiving, theirs, false)) {
    return Status::kPlatformError;
  }
  OPENSSL_cleanse(channel.client_secret, sizeof channel.client_secret);
  OPENSSL_cleanse(channel.server_secret, sizeof channel.server_secret);
  SSL_free(ssl);
  channel.ssl = nullptr;
  channel.established = true;
  return Status::kOk;
}

TlsChannel* begin_handshake(const TlsIdentity& identity, int handle, bool server) {
  auto* channel = new (std::nothrow) TlsChannel{};
  if (channel == nullptr) {
    return nullptr;
  }
  channel->ssl = SSL_new(static_cast<SSL_CTX*>(identity.context()));
  if (channel->ssl == nullptr || SSL_set_fd(channel->ssl, handle) != 1) {
    delete channel;
    return nullptr;
  }
  SSL_set_app_data(channel->ssl, channel);
  if (server) {
    SSL_set_accept_state(channel->ssl);
  } else {
    SSL_set_connect_state(channel->ssl);
  }
  return channel;
}

/// What went wrong in a handshake: the peer's certificate, or anything else.
Status handshake_failure(SSL* ssl) {
  const long verified = SSL_get_verify_result(ssl);
  ERR_clear_error();
  return verified != X509_V_OK ? Status::kPermissionDenied : Status::kPlatformError;
}

/// Opens the record at `in_begin` if it is all there: kOk with its data in [plain_begin,
/// plain_end) (perhaps none), kUnavailable if it is not all there yet, kPlatformError if it does
/// not open or the peer ended.
Status open_record(TlsChannel& channel) {
  const std::size_t available = channel.in_end - channel.in_begin;
  if (available < kRecordHeader) {
    return Status::kUnavailable;
  }
  auto* header = reinterpret_cast<std::uint8_t*>(channel.in + channel.in_begin);
  const std::size_t length = (std::size_t{header[3]} << 8) | header[4];
  if (header[0] != kApplicationData || header[1] != 3 || header[2] != 3 ||
      length > kMaxCiphertext || length < kTagSize + 1) {
    return Status::kPlatformError;
  }
  if (available < kRecordHeader + length) {
    return Status::kUnavailable;
  }
  std::uint8_t* body = header + kRecordHeader;
  const std::size_t sealed = length - kTagSize;
  std::uint8_t nonce[kIvSize];
  channel.receiving.nonce(nonce);
  EVP_CIPHER_CTX* cipher = channel.receiving.cipher;
  int written = 0;
  if (EVP_DecryptInit_ex(cipher, nullptr, nullptr, nullptr, nonce) != 1 ||
      EVP_DecryptUpdate(cipher, nullptr, &written, header, kRecordHeader) != 1 ||
      EVP_DecryptUpdate(cipher, body, &written, body, static_cast<int>(sealed)) != 1 ||
      EVP_CIPHER_CTX_ctrl(cipher, EVP_CTRL_GCM_SET_TAG, kTagSize, body + sealed) != 1 ||
      EVP_DecryptFinal_ex(cipher, body + sealed, &written) != 1) {
    return Status::kPlatformError;
  }
  ++channel.receiving.sequence;
  // The inner plaintext: the data, its content type, then zeros of padding.
  std::size_t end = sealed;
  while (end > 0 && body[end - 1] == 0) {
    --end;
  }
  if (end == 0) {
    return Status::kPlatformError;
  }
  const std::uint8_t type = body[end - 1];
  const std::size_t data_begin = channel.in_begin + kRecordHeader;
  channel.in_begin += kRecordHeader + length;
  if (type == kApplicationData) {
    channel.plain_begin = data_begin;
    channel.plain_end = data_begin + end - 1;
    return Status::kOk;
  }
  if (type == kHandshake && end > 1 && body[0] == kNewSessionTicket) {
    return Status::kOk;  // another implementation's ticket: nothing here resumes sessions
  }
  // An alert (close_notify or an error), a key update, anything else: the connection ends.
  return Status::kPlatformError;
}

}  // namespace

// ---------------------------------------------------------------- the node's identity

TlsIdentity::~TlsIdentity() {
  SSL_CTX_free(static_cast<SSL_CTX*>(context_));
}

Status TlsIdentity::load(const char* directory, const char* node) noexcept {
  SSL_CTX_free(static_cast<SSL_CTX*>(context_));
  context_ = nullptr;
  error_[0] = '\0';
  char ca[256];
  char certificate[256];
  char key[256];
  std::snprintf(ca, sizeof ca, "%s/ca.pem", directory);
  std::snprintf(certificate, sizeof certificate, "%s/%s.pem", directory, node);
  std::snprintf(key, sizeof key, "%s/%s.key", directory, node);
  for (const char* file : {ca, certificate, key}) {
    if (::access(file, R_OK) != 0) {
      std::snprintf(error_, sizeof error_, "cannot read %s: %s", file, std::strerror(errno));
      return Status::kInvalidArgument;
    }
  }
  SSL_CTX* context = SSL_CTX_new(TLS_method());
  auto fail = [&](const char* what, const char* file) {
    char said[160];
    ERR_error_string_n(ERR_get_error(), said, sizeof said);
    ERR_clear_error();
    std::snprintf(error_, sizeof error_, "%s %s: %s", what, file, said);
    SSL_CTX_free(context);
    return Status::kInvalidArgument;
  };
  if (context == nullptr) {
    return fail("cannot set up TLS for", node);
  }
  // TLS 1.3 only, one suite (AES-128-GCM: the sealing here, and AES-NI on these processors), no
  // session tickets (nothing after the handshake but records), peers' certificates required.
  if (SSL_CTX_set_min_proto_version(context, TLS1_3_VERSION) != 1 ||
      SSL_CTX_set_max_proto_version(context, TLS1_3_VERSION) != 1 ||
      SSL_CTX_set_ciphersuites(context, "TLS_AES_128_GCM_SHA256") != 1 ||
      SSL_CTX_set_num_tickets(context, 0) != 1) {
    return fail("cannot set up TLS 1.3 for", node);
  }
  SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_options(context, SSL_OP_NO_TICKET);
  if (SSL_CTX_use_certificate_file(context, certificate, SSL_FILETYPE_PEM) != 1) {
    return fail("cannot use the certificate", certificate);
  }
  if (SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(context) != 1) {
    return fail("cannot use the key", key);
  }
  if (SSL_CTX_load_verify_locations(context, ca, nullptr) != 1) {
    return fail("cannot use the CA certificate", ca);
  }
  char named[kMaxIdentityName + 1];
  if (!common_name(SSL_CTX_get0_certificate(context), named) || std::strcmp(named, node) != 0) {
    std::snprintf(error_, sizeof error_, "%s names node '%s', not '%s'", certificate, named, node);
    SSL_CTX_free(context);
    return Status::kInvalidArgument;
  }
  SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  SSL_CTX_set_keylog_callback(context, &take_secret);
  context_ = context;
  return Status::kOk;
}

// ---------------------------------------------------------------- handshakes

Status Socket::secure_as_client(const TlsIdentity& identity, const char* peer,
                                TimePoint deadline) noexcept {
  if (kind_ != Endpoint::Kind::kTcp || handle_ < 0 || !identity.loaded() || tls_ != nullptr) {
    return Status::kInvalidArgument;
  }
  tls_ = begin_handshake(identity, handle_, false);
  if (tls_ == nullptr) {
    return Status::kResourceExhausted;
  }
  for (;;) {
    const int done = SSL_do_handshake(tls_->ssl);
    if (done == 1) {
      break;
    }
    const int error = SSL_get_error(tls_->ssl, done);
    if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) {
      return handshake_failure(tls_->ssl);
    }
    pollfd waiting{handle_, static_cast<short>(error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT), 0};
    const auto remaining = deadline - MonotonicClock::now();
    const std::int64_t nanoseconds = remaining.count() > 0 ? remaining.count() : 0;
    const timespec timeout{static_cast<time_t>(nanoseconds / 1'000'000'000),
                           static_cast<long>(nanoseconds % 1'000'000'000)};
    const int ready = ::ppoll(&waiting, 1, &timeout, nullptr);
    if (ready == 0) {
      return Status::kUnavailable;
    }
    if (ready < 0 && errno != EINTR) {
      return Status::kPlatformError;
    }
  }
  if (const Status status = take_over(*tls_, false); status != Status::kOk) {
    return status;
  }
  return std::strcmp(tls_->peer, peer) == 0 ? Status::kOk : Status::kPermissionDenied;
}

Status Socket::secure_as_server(const TlsIdentity& identity) noexcept {
  if (kind_ != Endpoint::Kind::kTcp || handle_ < 0 || !identity.loaded() ||
      (tls_ != nullptr && tls_->established)) {
    return Status::kInvalidArgument;
  }
  if (tls_ == nullptr) {
    tls_ = begin_handshake(identity, handle_, true);
    if (tls_ == nullptr) {
      return Status::kResourceExhausted;
    }
  }
  const int done = SSL_do_handshake(tls_->ssl);
  if (done == 1) {
    return take_over(*tls_, true);
  }
  const int error = SSL_get_error(tls_->ssl, done);
  if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
    return Status::kUnavailable;
  }
  return handshake_failure(tls_->ssl);
}

const char* Socket::peer_identity() const noexcept {
  return tls_ != nullptr && tls_->established ? tls_->peer : "";
}

bool Socket::secured() const noexcept {
  return tls_ != nullptr && tls_->established;
}

bool Socket::holds_input() const noexcept {
  return tls_ != nullptr && tls::holds_input(*tls_);
}

// ---------------------------------------------------------------- records

namespace tls {

std::int64_t send(TlsChannel& channel, int handle, std::span<const std::byte> data) noexcept {
  if (!channel.established) {
    return -1;
  }
  const std::size_t size = data.size() < kMaxPlaintext ? data.size() : kMaxPlaintext;
  const std::size_t length = size + 1 + kTagSize;  // the data, its content type, the tag
  pthread_mutex_lock(&channel.send_lock);
  auto* record = reinterpret_cast<std::uint8_t*>(channel.out);
  record[0] = kApplicationData;
  record[1] = 3;  // legacy_record_version 0x0303, as TLS 1.3 says
  record[2] = 3;
  record[3] = static_cast<std::uint8_t>(length >> 8);
  record[4] = static_cast<std::uint8_t>(length);
  std::uint8_t nonce[kIvSize];
  channel.sending.nonce(nonce);
  EVP_CIPHER_CTX* cipher = channel.sending.cipher;
  const std::uint8_t type = kApplicationData;
  std::uint8_t* body = record + kRecordHeader;
  int written = 0;
  const bool sealed =
      EVP_EncryptInit_ex(cipher, nullptr, nullptr, nullptr, nonce) == 1 &&
      EVP_EncryptUpdate(cipher, nullptr, &written, record, kRecordHeader) == 1 &&
      EVP_EncryptUpdate(cipher, body, &written, reinterpret_cast<const std::uint8_t*>(data.data()),
                        static_cast<int>(size)) == 1 &&
      EVP_EncryptUpdate(cipher, body + size, &written, &type, 1) == 1 &&
      EVP_EncryptFinal_ex(cipher, body + size + 1, &written) == 1 &&
      EVP_CIPHER_CTX_ctrl(cipher, EVP_CTRL_GCM_GET_TAG, kTagSize, body + size + 1) == 1;
  std::int64_t result = -1;
  if (sealed) {
    const std::size_t total = kRecordHeader + length;
    const ssize_t sent = ::send(handle, record, total, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent == static_cast<ssize_t>(total)) {
      ++channel.sending.sequence;
      result = static_cast<std::int64_t>(size);
    } else if (sent < 0 && errno == EAGAIN) {
      // Nothing left: the sequence number is not used up, and the sealed record, which nobody
      // saw, is sealed again with other data under the same nonce.
      result = 0;
    } else if (sent > 0) {
      ++channel.sending.sequence;  // half a record on the wire: the stream is broken
    }
  }
  pthread_mutex_unlock(&channel.send_lock);
  return result;
}

std::int64_t receive(TlsChannel& channel, int handle, std::span<std::byte> buffer,
                     bool may_read) noexcept {
  if (!channel.established || channel.failed) {
    return -1;
  }
  std::size_t given = 0;
  // One read: a stream socket's recv takes all there is up to the room it is given, so a read
  // that leaves room found the kernel's buffer empty, and another would only say so (a system
  // call per frame more, and on a virtual machine a microsecond or two each).
  bool read = !may_read;
  for (;;) {
    if (channel.plain_begin < channel.plain_end) {
      const std::size_t left = channel.plain_end - channel.plain_begin;
      const std::size_t room = buffer.size() - given;
      const std::size_t count = left < room ? left : room;
      std::memcpy(buffer.data() + given, channel.in + channel.plain_begin, count);
      channel.plain_begin += count;
      given += count;
      if (given == buffer.size()) {
        return static_cast<std::int64_t>(given);
      }
      continue;
    }
    const Status opened = open_record(channel);
    if (opened == Status::kOk) {
      continue;
    }
    if (opened != Status::kUnavailable) {
      channel.failed = true;
      return given > 0 ? static_cast<std::int64_t>(given) : -1;
    }
    if (read) {
      return static_cast<std::int64_t>(given);
    }
    // The record is not all here: more is read behind what is left of the buffer.
    const std::span<std::byte> space = raw_space(channel);
    const ssize_t got = ::recv(handle, space.data(), space.size(), MSG_DONTWAIT);
    if (got > 0) {
      channel.in_end += static_cast<std::size_t>(got);
      read = static_cast<std::size_t>(got) < space.size();
      continue;
    }
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) {
      return static_cast<std::int64_t>(given);
    }
    channel.failed = true;  // the peer ended the stream (got == 0), or it broke
    return given > 0 ? static_cast<std::int64_t>(given) : -1;
  }
}

std::span<std::byte> raw_space(TlsChannel& channel) noexcept {
  // What is left of the buffer moves to its front (the buffer holds two records, so a whole one
  // always fits behind it); never while plaintext of the last record waits in it.
  if (channel.in_begin > 0 && channel.plain_begin == channel.plain_end) {
    std::memmove(channel.in, channel.in + channel.in_begin, channel.in_end - channel.in_begin);
    channel.in_end -= channel.in_begin;
    channel.in_begin = 0;
    channel.plain_begin = channel.plain_end = 0;
  }
  return {channel.in + channel.in_end, sizeof channel.in - channel.in_end};
}

void raw_received(TlsChannel& channel, std::size_t count) noexcept {
  channel.in_end += count;
}

bool holds_input(const TlsChannel& channel) noexcept {
  if (channel.plain_begin < channel.plain_end || channel.failed) {
    return channel.established;
  }
  const std::size_t available = channel.in_end - channel.in_begin;
  if (available < kRecordHeader) {
    return false;
  }
  const auto* header = reinterpret_cast<const std::uint8_t*>(channel.in + channel.in_begin);
  const std::size_t length = (std::size_t{header[3]} << 8) | header[4];
  return available >= kRecordHeader + length;
}

void release(TlsChannel* channel) noexcept {
  delete channel;
}

}  // namespace tls

}  // namespace kairos::kal
