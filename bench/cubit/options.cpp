#include "options.hpp"

#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace cubit {

int Options::warmup_calls() const {
  if (warmup >= 0) {
    return warmup;
  }
  const int tenth = samples / 10;
  return tenth < 10 ? 10 : tenth > 2000 ? 2000 : tenth;
}

void print_usage(std::FILE* to, const char* program) {
  std::fprintf(
      to,
      "usage: %s [options]\n"
      "  --samples N          two-way round trips per cell (default 10000)\n"
      "  --warmup N           round trips before measuring (default samples/10, 10..2000)\n"
      "  --oneway N           oneway messages per cell, small payloads (default 50000; 0: "
      "none)\n"
      "  --transport LIST     uds,tcp,udp,shm or all (default all)\n"
      "  --payload LIST       octet,short,long,struct,seq,seqN (N in 1..1024) or all\n"
      "  --stack LIST         raw,kairos,grpc,dds or all (those built into this binary)\n"
      "  --json FILE          also write the results as JSON\n"
      "  --cpu-client C       pin the client (this process) to CPU C\n"
      "  --cpu-server C       pin the serving child to CPU C\n"
      "  --breakdown          the kairos server prints where its requests' time went "
      "(stderr)\n",
      program);
}

namespace {

bool parse_int(std::string_view text, int low, int high, int& out) {
  if (text.empty() || text.size() > 10) {
    return false;
  }
  const std::string copy(text);
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(copy.c_str(), &end, 10);
  if (errno != 0 || end == copy.c_str() || *end != '\0' || value < low || value > high) {
    return false;
  }
  out = static_cast<int>(value);
  return true;
}

std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> parts;
  while (!text.empty()) {
    const auto comma = text.find(',');
    parts.push_back(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return parts;
}

bool parse_families(std::string_view text, std::vector<Family>& families) {
  families.clear();
  for (std::string_view part : split(text)) {
    if (part == "all") {
      families = {Family::kUds, Family::kTcp, Family::kUdp, Family::kShm};
    } else if (part == "uds") {
      families.push_back(Family::kUds);
    } else if (part == "tcp") {
      families.push_back(Family::kTcp);
    } else if (part == "udp") {
      families.push_back(Family::kUdp);
    } else if (part == "shm") {
      families.push_back(Family::kShm);
    } else {
      return false;
    }
  }
  return !families.empty();
}

bool parse_payload_list(std::string_view text, std::vector<Payload>& payloads) {
  payloads.clear();
  for (std::string_view part : split(text)) {
    const auto parsed = parse_payloads(part);
    if (parsed.empty()) {
      return false;
    }
    payloads.insert(payloads.end(), parsed.begin(), parsed.end());
  }
  return !payloads.empty();
}

}  // namespace

std::optional<Options> parse_options(int argc, char** argv, std::string& error) {
  Options options;
  constexpr int kMaxCount = 10'000'000;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    auto value = [&](std::string_view& out) {
      if (i + 1 >= argc) {
        error = std::string(flag) + " needs a value";
        return false;
      }
      out = argv[++i];
      return true;
    };
    std::string_view text;
    if (flag == "--help" || flag == "-h") {
      error.clear();
      return std::nullopt;
    } else if (flag == "--samples") {
      if (!value(text) || !parse_int(text, 1, kMaxCount, options.samples)) {
        error = error.empty() ? "--samples takes a count from 1 to 10000000" : error;
        return std::nullopt;
      }
    } else if (flag == "--warmup") {
      if (!value(text) || !parse_int(text, 0, kMaxCount, options.warmup)) {
        error = error.empty() ? "--warmup takes a count from 0 to 10000000" : error;
        return std::nullopt;
      }
    } else if (flag == "--oneway") {
      if (!value(text) || !parse_int(text, 0, kMaxCount, options.oneway)) {
        error = error.empty() ? "--oneway takes a count from 0 to 10000000" : error;
        return std::nullopt;
      }
    } else if (flag == "--transport") {
      if (!value(text) || !parse_families(text, options.families)) {
        error =
            error.empty() ? "--transport takes uds, tcp, udp, shm or all (comma-separated)" : error;
        return std::nullopt;
      }
    } else if (flag == "--payload") {
      if (!value(text) || !parse_payload_list(text, options.payloads)) {
        error = error.empty()
                    ? "--payload takes octet, short, long, struct, seq, seqN (1..1024) or all"
                    : error;
        return std::nullopt;
      }
    } else if (flag == "--stack") {
      if (!value(text)) {
        return std::nullopt;
      }
      options.stacks.clear();
      for (std::string_view part : split(text)) {
        if (part != "all") {
          options.stacks.emplace_back(part);
        }
      }
    } else if (flag == "--json") {
      if (!value(text) || text.empty()) {
        error = error.empty() ? "--json needs a file name" : error;
        return std::nullopt;
      }
      options.json = text;
    } else if (flag == "--cpu-client" || flag == "--cpu-server" || flag == "--cpu") {
      int cpu = -1;
      if (!value(text) || !parse_int(text, -1, 4095, cpu)) {
        error = error.empty() ? std::string(flag) + " takes a CPU number (-1: none)" : error;
        return std::nullopt;
      }
      (flag == "--cpu-client" ? options.cpu_client : options.cpu_server) = cpu;
    } else if (flag == "--breakdown") {
      options.breakdown = true;
    } else if (flag == "--wrong-reply") {
      if (!value(text) || !parse_int(text, 0, kMaxCount, options.wrong_reply)) {
        error = error.empty() ? "--wrong-reply takes a call number" : error;
        return std::nullopt;
      }
    } else if (flag == "--serve") {
      std::string_view stack;
      std::string_view transport;
      if (!value(stack) || !value(transport)) {
        error = "--serve takes a stack and a transport";
        return std::nullopt;
      }
      options.serve = true;
      options.serve_stack = stack;
      options.serve_transport = transport;
    } else if (flag == "--run-dir") {
      if (!value(text)) {
        return std::nullopt;
      }
      options.run_dir = text;
    } else if (flag == "--token") {
      if (!value(text)) {
        return std::nullopt;
      }
      options.token = text;
    } else if (flag == "--ready-fd") {
      if (!value(text) || !parse_int(text, 0, 1 << 20, options.ready_fd)) {
        error = error.empty() ? "--ready-fd takes a file descriptor" : error;
        return std::nullopt;
      }
    } else {
      error = "unknown argument '" + std::string(flag) + "'";
      return std::nullopt;
    }
  }
  if (options.serve && (options.ready_fd < 0 || options.token.empty())) {
    error = "--serve needs --ready-fd and --token";
    return std::nullopt;
  }
  return options;
}

}  // namespace cubit
