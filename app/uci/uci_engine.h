// `xqzero uci`: the UCI protocol as Pikafish speaks it (docs/architecture.md §6), over any istream/ostream
// so tests can script sessions.
//
// Commands: uci, isready, ucinewgame, position startpos|fen F [moves ...], go [nodes N]
// [movetime MS] [depth D] [wtime/btime/winc/binc MS] [movestogo N] [infinite] [ponder]
// [perft N], stop, ponderhit, setoption name X [value Y], d (board and FEN), quit.
// Anything malformed is answered with `info string <what is wrong>` (input echoed in it is cut
// to 80 characters) and otherwise ignored.
// A `go` without nodes, depth, movetime or clock searches until stop, like `go infinite`.
// Every `go` that searches ends in exactly one `bestmove`. A bad `go` value (not an integer,
// beyond 64 bits, out of range) is named in an info string and that limit is ignored (a
// negative winc/binc counts as 0, a value above its range is clamped); when no limit is left
// the engine answers at once (one visit: the best move of the kept tree, else a legal move)
// rather than waiting for a stop the GUI would not send.
// `go perft N` (N in 1..kMaxPerftDepth, like `xqzero perft`) counts in the background, so
// isready, stop and quit are answered meanwhile; it prints no bestmove, and a depth out of
// range is refused with an info string.
//
// The search runs in the background (app/uci/search_thread.h); `isready` and `stop` are
// answered at once during it. A `go` (or setoption/ucinewgame) that arrives while a finite
// search runs waits for it to end, so a scripted session reads like a sequence; during an
// infinite or ponder search it is refused with an info string. End of input waits for a
// finite search to finish (so `printf 'position startpos\ngo nodes 100\n' | xqzero uci`
// prints its bestmove); `quit` stops the search at once.
//
// Options: app/uci/uci_options.h (those backed by a configuration field change the engine's
// configuration). The evaluator is built from them at the first isready or go after they changed:
// WeightsFile "uniform" (the default) or empty searches with uniform priors and no network;
// a path loads that checkpoint (its own architecture) on Device. A checkpoint that fails to
// load is reported by info string and replaced by uniform priors.
#pragma once

#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/uci/search_thread.h"
#include "app/uci/uci_options.h"
#include "config.pb.h"
#include "core/game.h"
#include "nn/evaluator.h"
#include "search/time_manager.h"

namespace xq::app::uci {

class UciEngine {
 public:
  // `config` gives the defaults of the configuration-backed options (app/uci/uci_options.h)
  // and every other search and evaluator setting; `xqzero uci --config F` passes a file's.
  explicit UciEngine(std::ostream& out, xqzero::Config config = xqzero::Config());
  ~UciEngine();

  // Reads commands until quit or end of input. Returns the exit status (0).
  int loop(std::istream& in);
  // Handles one command line; false after quit.
  bool command(const std::string& line);
  // Waits until no search runs (tests).
  void wait_idle();

  const Game& game() const { return game_; }
  // The time budget the last `go` computed (tests check time management this way).
  const search::TimeBudget& last_budget() const { return last_budget_; }

 private:
  void emit(const std::string& line);
  void cmd_uci();
  void cmd_isready();
  void cmd_position(const std::vector<std::string>& words);
  void cmd_go(const std::vector<std::string>& words);
  void cmd_setoption(const std::string& line);
  void cmd_display();
  bool wait_for_finite_search(const char* what);
  void ensure_evaluator();
  Option* find_option(const std::string& name);

  std::ostream& out_;
  std::mutex out_mutex_;
  xqzero::Config config_;  // the configuration-backed options' values live here
  std::vector<Option> options_;
  Game game_;
  std::shared_ptr<nn::Evaluator> evaluator_;
  bool evaluator_dirty_ = true;
  search::TimeBudget last_budget_;
  std::unique_ptr<SearchThread> search_;
};

}  // namespace xq::app::uci
