#include <kairos/timings_report.hpp>

#include <array>
#include <cerrno>
#include <cstring>

#include <kairos/kal/error.hpp>
#include <kairos/kal/execution.hpp>
#include <kairos/kal/thread.hpp>

namespace kairos {

namespace {
/// Writes `text` as a JSON string (model paths are plain, but a file name may hold a quote).
void write_string(std::FILE* out, std::string_view text) noexcept {
  std::fputc('"', out);
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      std::fputc('\\', out);
      std::fputc(c, out);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      std::fprintf(out, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      std::fputc(c, out);
    }
  }
  std::fputc('"', out);
}

void write_histogram(std::FILE* out, const char* name, const TimingHistogram& histogram) noexcept {
  std::fprintf(out,
               "      \"%s\": {\"count\": %llu, \"max_ns\": %llu, \"p99_ns\": %llu, "
               "\"p999_ns\": %llu}",
               name, static_cast<unsigned long long>(histogram.count()),
               static_cast<unsigned long long>(histogram.max()),
               static_cast<unsigned long long>(histogram.percentile(kP99)),
               static_cast<unsigned long long>(histogram.percentile(kP999)));
}

struct MethodRow {
  std::string_view instance;
  std::string_view method;
  const char* kind;
  std::string_view source;
  unsigned core;
  Criticality criticality;
  kal::Duration wcet;
  kal::Duration deadline;
  const MethodTimings& timings;
};

void write_method(std::FILE* out, const MethodRow& row, bool last) noexcept {
  std::fputs("    {\n      \"instance\": ", out);
  write_string(out, row.instance);
  std::fputs(",\n      \"method\": ", out);
  write_string(out, row.method);
  std::fprintf(out, ",\n      \"kind\": \"%s\",\n      \"source\": ", row.kind);
  write_string(out, row.source);
  std::fprintf(
      out,
      ",\n      \"core\": %u,\n      \"criticality\": \"%s\",\n      \"wcet_ns\": %lld,\n"
      "      \"deadline_ns\": %lld,\n      \"wcet_overruns\": %llu,\n"
      "      \"start_window_misses\": %llu,\n      \"deadline_misses\": %llu,\n"
      "      \"overruns\": %llu,\n",
      row.core, row.criticality == Criticality::kHard ? "hard" : "soft",
      static_cast<long long>(row.wcet.count()), static_cast<long long>(row.deadline.count()),
      static_cast<unsigned long long>(row.timings.wcet_overruns.load(std::memory_order_relaxed)),
      static_cast<unsigned long long>(
          row.timings.start_window_misses.load(std::memory_order_relaxed)),
      static_cast<unsigned long long>(row.timings.deadline_misses.load(std::memory_order_relaxed)),
      static_cast<unsigned long long>(row.timings.overruns.load(std::memory_order_relaxed)));
  write_histogram(out, "execution", row.timings.execution);
  std::fputs(",\n", out);
  write_histogram(out, "response", row.timings.response);
  std::fprintf(out, "\n    }%s\n", last ? "" : ",");
}
}  // namespace

void write_timings_json(std::FILE* out, std::string_view node_name, const Engine& engine,
                        bool complete) noexcept {
  const char* scheduling = kal::scheduling_in_effect();
  std::fputs("{\n  \"format\": \"kairos-timings\",\n  \"version\": 1,\n  \"node\": ", out);
  write_string(out, node_name);
  std::fprintf(out,
               ",\n  \"complete\": %s,\n  \"execution_clock\": \"%s\",\n  \"scheduling\": \"%s\","
               "\n  \"methods\": [\n",
               complete ? "true" : "false", kal::kSimulatedTime ? "modelled" : "thread-cpu",
               scheduling);
  const std::size_t spms = engine.spm_count();
  const std::size_t svms = engine.svm_count();
  for (std::size_t row = 0; row < spms; ++row) {
    const SpmEntry& entry = engine.spm(row);
    write_method(out,
                 MethodRow{entry.instance, entry.method, "spm", entry.source, entry.core,
                           entry.criticality, entry.wcet, entry.deadline, engine.spm_timings(row)},
                 row + 1 == spms && svms == 0);
  }
  for (std::size_t row = 0; row < svms; ++row) {
    const SvmEntry& entry = engine.svm(row);
    write_method(out,
                 MethodRow{entry.instance, entry.method, "svm", entry.source, entry.core,
                           entry.criticality, entry.wcet, entry.gct, engine.svm_timings(row)},
                 row + 1 == svms);
  }
  std::fputs("  ]\n}\n", out);
}

bool write_timings_file(const char* path, std::string_view node_name, const Engine& engine,
                        bool complete) noexcept {
  std::array<char, 4096> temporary{};
  const int length = std::snprintf(temporary.data(), temporary.size(), "%s.tmp", path);
  if (length < 0 || static_cast<std::size_t>(length) >= temporary.size()) {
    kal::report(kal::Severity::kError, "timings", "the --timings path is too long");
    return false;
  }
  std::FILE* out = std::fopen(temporary.data(), "w");
  if (out == nullptr) {
    kal::report(kal::Severity::kError, "timings", std::strerror(errno));
    return false;
  }
  write_timings_json(out, node_name, engine, complete);
  const bool written = std::ferror(out) == 0;
  if (std::fclose(out) != 0 || !written || std::rename(temporary.data(), path) != 0) {
    kal::report(kal::Severity::kError, "timings", "cannot write the --timings file");
    std::remove(temporary.data());
    return false;
  }
  return true;
}

}  // namespace kairos
