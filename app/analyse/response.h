// The JSON lines `xqzero analyse` writes (docs/analysis.md): an analysed position, a game
// that is already over, a terminated position, an error or a warning, an action's
// acknowledgement. Values are for the side to move at the analysed position.
#pragma once

#include <string>
#include <vector>

#include "app/analyse/query.h"
#include "core/game.h"
#include "search/search.h"

namespace xq::app::analyse {

// A search's answer for `game`'s current position (ply `ply` of query `q`).
// `memory_limited`: the search stopped because its tree reached its share of the engine's
// tree memory (marked "memoryLimited": true; the answer is what it had).
std::string analysis_json(const Query& q, int ply, const Game& game, const search::Search& search, bool during,
                          bool terminated, bool memory_limited = false);
// The position is final (checkmate, repetition verdict, ...): nothing to search.
std::string game_over_json(const Query& q, int ply, const Game& game);
// A queued position of a terminated query.
std::string terminated_json(const std::string& id, int ply);
// `id` empty: unknown (malformed line); `field` empty: no single field at fault; `ply` < 0:
// not about one position.
std::string error_json(const std::string& id, int ply, const std::string& field, const std::string& message);
// A line that was carried out despite `field` (an unknown field, ignored).
std::string warning_json(const std::string& id, const std::string& field, const std::string& message);
// terminate (`terminate_id` given) or terminate_all (null): `plies` as the action gave them
// (empty: every ply), `stopped` the positions it stopped that were not answered yet.
std::string terminate_ack_json(const std::string& id, const std::string* terminate_id, const std::vector<int>& plies,
                               int stopped);
// query_version: the engine's version (and, when the build records it, its git hash).
std::string version_json(const std::string& id);
std::string clear_cache_ack_json(const std::string& id);

// The version query_version reports: the build's XQZERO_VERSION when it defines one, else
// the project version of CMakeLists.txt (kept equal to it; a test compares the two).
std::string engine_version();

// The lower confidence bound reported as a move's `lcb` (docs/analysis.md): q - 1.96 *
// sqrt(max(0, 1 - draw - q^2) / visits), clamped to [-1, 1]; -1 without visits.
double value_lcb(double q, double draw, unsigned visits);

}  // namespace xq::app::analyse
