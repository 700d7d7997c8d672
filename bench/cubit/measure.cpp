#include "measure.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "process.hpp"

namespace cubit {

bool measure_two_way(Connection& connection, const Payload& payload, int samples, int warmup,
                     bench::Summary& summary, std::string& error) {
  Value request;
  Value reply;
  std::vector<std::int64_t> ns;
  ns.reserve(static_cast<std::size_t>(samples));
  for (int i = 0; i < warmup + samples; ++i) {
    fill(payload, static_cast<std::uint32_t>(i), request);
    reply.kind = request.kind;
    const std::int64_t start = now_ns();
    const bool ok = connection.call(request, reply);
    const std::int64_t end = now_ns();
    if (!ok) {
      error = "call " + std::to_string(i) + " failed: " + connection.error();
      return false;
    }
    if (const auto wrong = check_cubed(request, reply)) {
      error = "wrong reply to call " + std::to_string(i) + ": " + *wrong;
      return false;
    }
    if (i >= warmup) {
      ns.push_back(end - start);
    }
  }
  summary = bench::summarize(std::move(ns));
  return true;
}

bool measure_oneway(Connection& connection, const Payload& payload, int messages, bool may_drop,
                    Row& row, std::string& error) {
  OnewayTotals before;
  if (!connection.oneway_totals(before)) {
    error = "totals before the burst: " + connection.error();
    return false;
  }
  Value request;
  std::uint64_t expected_digest = 0;
  const std::int64_t start = now_ns();
  for (int i = 0; i < messages; ++i) {
    fill(payload, static_cast<std::uint32_t>(i), request);
    if (!connection.send_oneway(request)) {
      error = "oneway " + std::to_string(i) + " failed: " + connection.error();
      return false;
    }
  }
  OnewayTotals after;
  if (!connection.oneway_totals(after)) {
    error = "totals after the burst: " + connection.error();
    return false;
  }
  const std::int64_t end = now_ns();
  // The expected digest is computed after the clock stopped, from the same values.
  for (int i = 0; i < messages; ++i) {
    fill(payload, static_cast<std::uint32_t>(i), request);
    cube(request);
    expected_digest += digest(request);
  }
  const std::uint64_t received = after.count - before.count;
  const auto sent = static_cast<std::uint64_t>(messages);
  if (received > sent || (!may_drop && received != sent)) {
    error = "the server received " + std::to_string(received) + " of " + std::to_string(sent) +
            " oneway messages";
    return false;
  }
  if (received == sent && after.digest - before.digest != expected_digest) {
    error = "the digest of the cubed oneway values is wrong";
    return false;
  }
  row.oneway = true;
  row.sent = sent;
  row.received = received;
  row.seconds = static_cast<double>(end - start) / 1e9;
  row.per_second = row.seconds > 0 ? static_cast<double>(received) / row.seconds : 0;
  return true;
}

void compute_ratios(std::vector<Row>& rows) {
  // The baseline of (family, payload, mode): the best raw transport of that family.
  std::map<std::tuple<Family, std::string, bool>, const Row*> best;
  for (const Row& row : rows) {
    if (row.stack != "raw") {
      continue;
    }
    const Row*& slot = best[{row.family, row.payload.name(), row.oneway}];
    const bool better = slot == nullptr || (row.oneway ? row.per_second > slot->per_second
                                                       : row.latency.p50_us < slot->latency.p50_us);
    if (better) {
      slot = &row;
    }
  }
  std::vector<std::pair<double, std::string>> ratios;
  for (const Row& row : rows) {
    const auto found = best.find({row.family, row.payload.name(), row.oneway});
    if (found == best.end()) {
      ratios.emplace_back(0, "");
      continue;
    }
    const Row& base = *found->second;
    const double ratio =
        row.oneway ? (base.per_second > 0 ? row.per_second / base.per_second : 0)
                   : (base.latency.p50_us > 0 ? row.latency.p50_us / base.latency.p50_us : 0);
    ratios.emplace_back(ratio, base.transport);
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].ratio = ratios[i].first;
    rows[i].baseline = ratios[i].second;
  }
}

void print_tables(const std::vector<Row>& rows, int samples, int warmup, int oneway) {
  std::vector<std::string> payloads;
  for (const Row& row : rows) {
    if (!row.oneway) {
      bool known = false;
      for (const auto& name : payloads) {
        known = known || name == row.payload.name();
      }
      if (!known) {
        payloads.push_back(row.payload.name());
      }
    }
  }
  for (const auto& name : payloads) {
    std::size_t bytes = 0;
    for (const Row& row : rows) {
      if (row.payload.name() == name) {
        bytes = row.payload.bytes();
      }
    }
    std::printf("\n== two-way %s (%zu B): %d samples after %d warm-up calls\n", name.c_str(), bytes,
                samples, warmup);
    std::printf("%-6s %-14s %9s %9s %10s %9s  %s\n", "stack", "transport", "p50 us", "p99 us",
                "max us", "mean us", "p50 / raw p50 of the family");
    for (const Row& row : rows) {
      if (row.oneway || row.payload.name() != name) {
        continue;
      }
      std::printf("%-6s %-14s %9.1f %9.1f %10.1f %9.1f  ", row.stack.c_str(), row.transport.c_str(),
                  row.latency.p50_us, row.latency.p99_us, row.latency.max_us, row.latency.mean_us);
      if (row.ratio > 0) {
        std::printf("%.2fx %s\n", row.ratio, row.baseline.c_str());
      } else {
        std::printf("-\n");
      }
    }
  }
  bool any_oneway = false;
  for (const Row& row : rows) {
    any_oneway = any_oneway || row.oneway;
  }
  if (!any_oneway) {
    return;
  }
  std::printf("\n== oneway throughput: %d messages per cell, then a two-way wait for the server\n",
              oneway);
  std::printf("%-6s %-14s %-7s %12s %10s  %s\n", "stack", "transport", "payload", "messages/s",
              "received", "rate / raw rate of the family");
  for (const Row& row : rows) {
    if (!row.oneway) {
      continue;
    }
    std::printf("%-6s %-14s %-7s %12.0f %10llu  ", row.stack.c_str(), row.transport.c_str(),
                row.payload.name().c_str(), row.per_second,
                static_cast<unsigned long long>(row.received));
    if (row.ratio > 0) {
      std::printf("%.2fx %s\n", row.ratio, row.baseline.c_str());
    } else {
      std::printf("-\n");
    }
  }
}

namespace {
std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_number(double value) {
  if (!std::isfinite(value)) {
    return "null";
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", value);
  return text;
}
}  // namespace

void read_load(double load[3]) {
  load[0] = load[1] = load[2] = -1;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) {
      load[0] = load[1] = load[2] = -1;
    }
    std::fclose(f);
  }
}

bool write_json(const std::string& file, const std::vector<Row>& rows, int samples, int warmup,
                const double load_before[3], const double load_after[3],
                const std::vector<std::string>& errors) {
  std::FILE* out = std::fopen(file.c_str(), "w");
  if (out == nullptr) {
    return false;
  }
  std::fprintf(out, "{\n  \"benchmark\": \"cubit\",\n  \"samples\": %d,\n  \"warmup\": %d,\n",
               samples, warmup);
  std::fprintf(out, "  \"load_average_before\": [%s, %s, %s],\n",
               json_number(load_before[0]).c_str(), json_number(load_before[1]).c_str(),
               json_number(load_before[2]).c_str());
  std::fprintf(out, "  \"load_average_after\": [%s, %s, %s],\n", json_number(load_after[0]).c_str(),
               json_number(load_after[1]).c_str(), json_number(load_after[2]).c_str());
  std::fprintf(out, "  \"errors\": [");
  for (std::size_t i = 0; i < errors.size(); ++i) {
    std::fprintf(out, "%s%s", i == 0 ? "" : ", ", json_string(errors[i]).c_str());
  }
  std::fprintf(out, "],\n  \"results\": [\n");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    std::fprintf(out,
                 "    {\"stack\": %s, \"transport\": %s, \"family\": %s, \"payload\": %s, "
                 "\"bytes\": %zu, \"mode\": %s, ",
                 json_string(row.stack).c_str(), json_string(row.transport).c_str(),
                 json_string(family_name(row.family)).c_str(),
                 json_string(row.payload.name()).c_str(), row.payload.bytes(),
                 row.oneway ? "\"oneway\"" : "\"two-way\"");
    if (row.oneway) {
      std::fprintf(out, "\"sent\": %llu, \"received\": %llu, \"seconds\": %s, \"per_second\": %s, ",
                   static_cast<unsigned long long>(row.sent),
                   static_cast<unsigned long long>(row.received), json_number(row.seconds).c_str(),
                   json_number(row.per_second).c_str());
    } else {
      std::fprintf(out,
                   "\"samples\": %zu, \"p50_us\": %s, \"p99_us\": %s, \"max_us\": %s, "
                   "\"mean_us\": %s, ",
                   row.latency.samples, json_number(row.latency.p50_us).c_str(),
                   json_number(row.latency.p99_us).c_str(), json_number(row.latency.max_us).c_str(),
                   json_number(row.latency.mean_us).c_str());
    }
    std::fprintf(out, "\"ratio\": %s, \"baseline\": %s}%s\n", json_number(row.ratio).c_str(),
                 json_string(row.baseline).c_str(), i + 1 < rows.size() ? "," : "");
  }
  std::fprintf(out, "  ]\n}\n");
  return std::fclose(out) == 0;
}

}  // namespace cubit
