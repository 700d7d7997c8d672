// Linux: shared-memory connections (shm:name), the part of Socket behind its shm: endpoints.
#pragma once

#include <cstdint>
#include <span>

#include <kairos/kal/socket.hpp>

namespace kairos::kal::shm {

/// Listens for set-up connections on the abstract Unix socket of `endpoint`'s name.
Status listen(const Endpoint& endpoint, int& handle) noexcept;
/// Takes one set-up connection: creates the shared memory and the doorbells and hands them over.
/// `handle` becomes this side's doorbell.
Status accept(int listener, int& handle, SharedMemoryLink& link) noexcept;
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
