// `xqzero uci`: the UCI protocol as Pikafish speaks it (docs/architecture.md §6), over any istream/ostream
// so tests can script sessions.
//
// Commands: uci, isready, ucinewgame, position startpos|fen F [moves ...], go [nodes N]
// [movetime MS] [depth D] [mate N] [searchmoves M...] [wtime/btime/winc/binc MS] [movestogo N]
// [infinite] [ponder] [perft N] (app/uci/go_command.h), stop, ponderhit, setoption name X
// [value Y], d (board and FEN), quit.
// Anything malformed is answered with `info string <what is wrong>` (input echoed in it is cut
// to 80 characters) and otherwise ignored. A line with a control byte (NUL and the like, not
// tab) is refused whole and never echoed.
// `go searchmoves` restricts the root to the legal moves listed (none legal: every move, said
// in an info string); `go mate N` stops once a win in at most N moves is proven, else after
// kMateVisitsPerMoveSquared * N^2 visits. A game the rules have ended (a repetition the GUI
// plays on) is searched on with its history (app/uci/search_thread.h).
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
// The search runs in the background (app/uci/search_thread.h); `isready`, `stop` and `quit`
// are answered at once during it: the input thread never waits for a search to run its course.
// A `go`, `setoption` or `ucinewgame` that arrives while a search (or `go perft`) runs stops
// it first, as Stockfish does (its bestmove comes first), then takes effect. End of input is
// `quit`: the search is stopped and its bestmove printed.
//
// Options: app/uci/uci_options.h (those backed by a configuration field change the engine's
// configuration). The evaluator is built from them at the first isready or go after they changed:
// WeightsFile "bundled" (the default, or empty) plays the net that ships with xqzero
// (nn/bundled_net.h); "uniform" searches with uniform priors and no network; a path loads that
// checkpoint (its own architecture) on Device. The loaded net is named by `info string net:
// FILE (architecture)` when it is built. A file that fails to load never falls back to
// uniform priors: every isready and go after it names the file and the reason, and the engine
// plays the previous net, or answers `bestmove (none)` when it has none.
#pragma once

#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/uci/go_command.h"
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
  // Hash shared between the trees and the evaluator's cache, as the options stand.
  HashSplit hash_split() const;
  // The evaluator searches use (null before the first isready or go builds one; tests).
  const nn::Evaluator* evaluator() const { return evaluator_.get(); }

 private:
  void emit(const std::string& line);
  void cmd_uci();
  void cmd_isready();
  void cmd_position(const std::vector<std::string>& words);
  void cmd_go(const std::vector<std::string>& words);
  void cmd_setoption(const std::string& line);
  void cmd_display();
  void make_idle();
  bool ensure_evaluator();
  void report_weights_error();
  Option* find_option(const std::string& name);

  std::ostream& out_;
  std::mutex out_mutex_;
  xqzero::Config config_;  // the configuration-backed options' values live here
  std::vector<Option> options_;
  Game game_;
  std::shared_ptr<nn::Evaluator> evaluator_;
  bool evaluator_dirty_ = true;
  std::string net_description_;  // the net evaluator_ plays with: its file and architecture
  std::string weights_error_;    // why the WeightsFile set last could not be loaded ("" if it was)
  search::TimeBudget last_budget_;
  std::unique_ptr<SearchThread> search_;
};

}  // namespace xq::app::uci
