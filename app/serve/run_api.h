// What the dashboard reads from a run directory, as JSON (docs/serve.md): metrics.jsonl a
// piece at a time, the checkpoints, the record files and the games of one. A run directory
// being written meanwhile is expected: a last metrics line without its newline is left for
// the next read, metrics.jsonl replaced by a resumed run shows as a new fileId, and record
// files only ever appear whole (records/record_io.h).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "app/serve/run_files.h"

namespace xq::app::serve {

// The complete lines of the run's metrics.jsonl from line `from` (0-based) on, at most `max_lines` of them:
// {"from", "next", "total", "fileId", "reset", "skipped", "lines"}. Lines that are not JSON
// objects are counted in "skipped" (and in the numbering). When `from` is past the file's end
// (the file was replaced by a shorter one), reading restarts at 0 with "reset": true. A missing
// file (or one a symlink takes outside the run directory) reads as empty.
nlohmann::json read_metrics(const RunDir& run, long long from, size_t max_lines);

// {"latest": name or null, "checkpoints": [{"file", "step", "bytes", "mtime"}...]} by step.
nlohmann::json list_checkpoints(const RunDir& run);

// {"files": [{"file", "bytes", "mtime"}...]}: the newest `limit` record files under games/,
// oldest first.
nlohmann::json list_record_files(const RunDir& run, size_t limit);

// The games of the record file `relative` (path-checked), at most `limit` of them, last ones
// kept: {"file", "total", "games": [{"index", "startFen", "moves", "values", "result",
// "termination", "network", "finishedUnixMs"}...]}. A file that is not a readable record file
// is a RequestError 422 naming it.
nlohmann::json read_games(const RunDir& run, const std::string& relative, size_t limit);

}  // namespace xq::app::serve
