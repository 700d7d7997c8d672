// Linux: shared-memory connections (shm:name), the part of Socket behind its shm: endpoints.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <span>

#include <kairos/kal/socket.hpp>

namespace kairos::kal {
/// Whether a process listens on the Unix socket at `address`: a connection to it is accepted
/// into its backlog at once; a socket file nobody listens on refuses it (socket.cpp).
bool someone_listens(const sockaddr_storage& address, socklen_t length, Transfer transfer) noexcept;
}  // namespace kairos::kal

namespace kairos::kal::shm {

/// Listens for set-up connections on the Unix socket file of `endpoint`'s name (setup_address),
/// its user's alone, or its user's and `peers`'s group; a file a run that ended left behind is
/// taken over, one a process still listens on is not (kAddressInUse).
Status listen(const Endpoint& endpoint, LocalPeers peers, int& handle) noexcept;
/// Removes the set-up socket's file of a listener on `endpoint` that has closed.
void remove_setup_file(const Endpoint& endpoint) noexcept;
/// Takes one set-up connection of a peer `peers` lets in (peer_is_trusted): creates the shared
/// memory and the doorbells and hands them over. `handle` becomes this side's doorbell.
Status accept(int listener, LocalPeers peers, int& handle, SharedMemoryLink& link) noexcept;

/// Gives the socket file at `path` to its user alone (0600), or to its user and `peers`'s group
/// (0660): before anyone can connect.
Status guard_socket_file(const char* path, LocalPeers peers) noexcept;
/// Whether the process at the other end of a Unix socket may use this node: it runs as this
/// process's user, or as root (who may open any socket file anyway), or is a member of `peers`'s
/// group. Read from the kernel (SO_PEERCRED, SO_PEERGROUPS), not from anything the peer says.
bool peer_is_trusted(int unix_socket, LocalPeers peers) noexcept;
/// Connects and maps the memory the server hands over, waiting at most until `deadline`.
Status connect(const Endpoint& endpoint, TimePoint deadline, int& handle,
               SharedMemoryLink& link) noexcept;

std::int64_t send(SharedMemoryLink& link, std::span<const std::byte> message) noexcept;
std::int64_t receive(int handle, SharedMemoryLink& link, std::span<std::byte> buffer) noexcept;
bool wait_readable(int handle, SharedMemoryLink& link, TimePoint deadline) noexcept;
void shutdown(SharedMemoryLink& link) noexcept;
/// Unmaps the memory and closes the doorbells and the set-up socket.
void close(int& handle, SharedMemoryLink& link) noexcept;

}  // namespace kairos::kal::shm
