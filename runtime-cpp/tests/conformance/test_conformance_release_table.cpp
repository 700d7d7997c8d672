// The static release table: the time trigger walks the table kairos generated and releases
// exactly what each row's AAC describes; a table out of step with its rows is refused.
#include <array>
#include <vector>

#include "scenario.hpp"

namespace {

using conformance::unit;
using kairos::ReleaseEntry;
using kairos::SpmEntry;
using namespace std::chrono_literals;

constexpr SpmEntry row(std::string_view name, kairos::kal::Duration first,
                       kairos::kal::Duration period, kairos::kal::Duration open,
                       kairos::kal::Duration wcet, kairos::kal::PriorityBand band) {
  return SpmEntry{"table", name,          "scenario",    first, kairos::kForever,           period,
                  open,    open + period, open + period, wcet,  kairos::Criticality::kHard, band};
}

// A (period 4, band 2) and B (period 6, start window opening 1 after t, band 1): hyperperiod
// 12, start windows open at A 0, 4, 8 and B 1, 7.
constexpr std::array<SpmEntry, 2> kRows{row("a", 0ms, 4ms, 0ms, 1ms, 2),
                                        row("b", 0ms, 6ms, 1ms, 2ms, 1)};
constexpr std::array<ReleaseEntry, 5> kTable{{{0ms, 0}, {1ms, 1}, {4ms, 0}, {7ms, 1}, {8ms, 0}}};

static_assert(kairos::release_table_matches(kRows, kTable, 12ms));
// A missing opening, a shifted one, a table out of order, a wrong hyperperiod.
static_assert(!kairos::release_table_matches(
    kRows, std::array<ReleaseEntry, 4>{{{0ms, 0}, {1ms, 1}, {4ms, 0}, {8ms, 0}}}, 12ms));
static_assert(!kairos::release_table_matches(
    kRows, std::array<ReleaseEntry, 5>{{{0ms, 0}, {2ms, 1}, {4ms, 0}, {7ms, 1}, {8ms, 0}}}, 12ms));
static_assert(!kairos::release_table_matches(
    kRows, std::array<ReleaseEntry, 5>{{{0ms, 0}, {4ms, 0}, {1ms, 1}, {7ms, 1}, {8ms, 0}}}, 12ms));
static_assert(!kairos::release_table_matches(kRows, kTable, 24ms));

struct Run {
  std::vector<kairos::ActivationRecord> records;
  kairos::EngineCounters counters{};
};

void collect(void* context, const SpmEntry&, const kairos::ActivationRecord& record) {
  static_cast<Run*>(context)->records.push_back(record);
}

// Runs rows scaled to the platform's time unit, with or without their release table.
Run run(const std::vector<SpmEntry>& rows, const std::vector<ReleaseEntry>* table,
        kairos::kal::Duration hyperperiod, std::int64_t units) {
  auto workers = std::vector<conformance::Worker>(rows.size());
  auto engine = std::make_unique<kairos::Engine>(
      kairos::EngineOptions{kairos::Strategy::kRms, conformance::kOneCpu, false});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    workers[i].work = rows[i].wcet;
    REQUIRE(engine->add_spm(rows[i], &workers[i], &conformance::work, &conformance::count_miss) ==
            kairos::kal::Status::kOk);
  }
  if (table != nullptr) {
    REQUIRE(engine->set_release_table(*table, hyperperiod) == kairos::kal::Status::kOk);
  }
  Run result;
  result.records.reserve(1024);
  REQUIRE(engine->run_for(unit() * units, &collect, &result) == kairos::kal::Status::kOk);
  result.counters = engine->counters();
  std::sort(result.records.begin(), result.records.end(), [](const auto& a, const auto& b) {
    return a.release_ns != b.release_ns ? a.release_ns < b.release_ns : a.spm < b.spm;
  });
  return result;
}

// run, played again (up to five times) while a run misses a start window or a deadline: on a real
// clock a host that takes the processor from the whole process makes a run miss, and such a run
// says nothing of the table (where time is simulated the first run is the only one).
Run run_without_misses(const std::vector<SpmEntry>& rows, const std::vector<ReleaseEntry>* table,
                       kairos::kal::Duration hyperperiod, std::int64_t units) {
  Run result = run(rows, table, hyperperiod, units);
  for (int attempt = 1; attempt < 5 && (result.counters.start_window_misses != 0 ||
                                        result.counters.deadline_misses != 0);
       ++attempt) {
    UNSCOPED_INFO("run " << attempt << " missed " << result.counters.start_window_misses
                         << " start window(s) and " << result.counters.deadline_misses
                         << " deadline(s): played again");
    result = run(rows, table, hyperperiod, units);
  }
  return result;
}

// The rows and table above, in the platform's time unit (1 ms simulated, 2 ms real).
std::vector<SpmEntry> scaled_rows(kairos::kal::Duration later_first = 0ms) {
  std::vector<SpmEntry> rows;
  for (const SpmEntry& entry : kRows) {
    SpmEntry scaled = entry;
    scaled.period = unit() * (entry.period / 1ms);
    scaled.window_open = unit() * (entry.window_open / 1ms);
    scaled.window_close = scaled.window_open + scaled.period;
    scaled.deadline = scaled.window_close;
    scaled.wcet = unit() * (entry.wcet / 1ms);
    rows.push_back(scaled);
  }
  rows[1].first_release = unit() * (later_first / 1ms);
  return rows;
}

std::vector<ReleaseEntry> scaled_table() {
  std::vector<ReleaseEntry> table;
  for (const ReleaseEntry& entry : kTable) {
    table.push_back(ReleaseEntry{unit() * (entry.open / 1ms), entry.spm});
  }
  return table;
}

}  // namespace

TEST_CASE("the time trigger walking the release table releases what the AAC rows describe",
          "[conformance][release-table]") {
  const auto rows = scaled_rows();
  const auto table = scaled_table();
  const Run tabulated = run_without_misses(rows, &table, unit() * 12, 36);
  const Run derived = run_without_misses(rows, nullptr, {}, 36);

  // Three hyperperiods: A released 9 times, B 6 times, every one in order and on time.
  REQUIRE(tabulated.records.size() == 15);
  REQUIRE(tabulated.counters.start_window_misses == 0);
  REQUIRE(tabulated.counters.deadline_misses == 0);
  std::array<std::uint64_t, 2> next_sequence{};
  for (const auto& record : tabulated.records) {
    const SpmEntry& entry = rows[record.spm];
    CHECK(record.sequence == next_sequence[record.spm]++);
    CHECK(record.release_ns == (entry.period * static_cast<std::int64_t>(record.sequence)).count());
    CHECK(record.start_ns >= record.release_ns + entry.window_open.count());
  }
  REQUIRE(derived.records.size() == tabulated.records.size());
  for (std::size_t k = 0; k < derived.records.size(); ++k) {
    CHECK(derived.records[k].spm == tabulated.records[k].spm);
    CHECK(derived.records[k].release_ns == tabulated.records[k].release_ns);
    if (kairos::kal::kSimulatedTime) {
      // Same instants to the nanosecond where time is simulated.
      CHECK(derived.records[k].start_ns == tabulated.records[k].start_ns);
      CHECK(derived.records[k].finish_ns == tabulated.records[k].finish_ns);
    }
  }
}

TEST_CASE("a first release hyperperiods ahead is found without walking the cycles before it",
          "[conformance][release-table]") {
  // B starts at 30 units (= 6 mod 12, on its period's grid): releases at 30 and 36 in 40 units.
  const auto rows = scaled_rows(30ms);
  const auto table = scaled_table();
  const Run tabulated = run(rows, &table, unit() * 12, 40);
  std::vector<std::int64_t> b_releases;
  for (const auto& record : tabulated.records) {
    if (record.spm == 1) {
      b_releases.push_back(record.release_ns);
    }
  }
  CHECK(b_releases == std::vector<std::int64_t>{(unit() * 30).count(), (unit() * 36).count()});
  CHECK(tabulated.records.size() == 12);  // and A's ten releases in 40 units
}

TEST_CASE("a release table out of step with its rows is refused", "[conformance][release-table]") {
  const auto rows = scaled_rows();
  kairos::Engine engine{kairos::EngineOptions{kairos::Strategy::kRms, conformance::kOneCpu, false}};
  conformance::Worker worker;
  for (const SpmEntry& entry : rows) {
    REQUIRE(engine.add_spm(entry, &worker, &conformance::work, &conformance::count_miss) ==
            kairos::kal::Status::kOk);
  }
  auto table = scaled_table();
  table.pop_back();
  CHECK(engine.set_release_table(table, unit() * 12) == kairos::kal::Status::kInvalidArgument);
  CHECK(engine.set_release_table({}, unit() * 12) == kairos::kal::Status::kInvalidArgument);
  table = scaled_table();
  CHECK(engine.set_release_table(table, unit() * 24) == kairos::kal::Status::kInvalidArgument);
  CHECK(engine.set_release_table(table, unit() * 12) == kairos::kal::Status::kOk);
}
