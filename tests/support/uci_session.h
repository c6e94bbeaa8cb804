// Shared pieces of the UCI tests: scripted sessions and the fields of their output lines.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "app/uci/uci_engine.h"
#include "core/move_parse.h"
#include "core/movegen.h"

namespace xq::app::uci::fixtures {

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream is(text);
  for (std::string l; std::getline(is, l);) out.push_back(l);
  return out;
}

inline std::vector<std::string> with_prefix(const std::vector<std::string>& lines, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& l : lines)
    if (l.rfind(prefix, 0) == 0) out.push_back(l);
  return out;
}

// The value after `key` in an info line ("" if absent).
inline std::string field(const std::string& line, const std::string& key) {
  std::istringstream is(line);
  for (std::string w; is >> w;)
    if (w == key) {
      std::string v;
      is >> v;
      return v;
    }
  return "";
}

inline std::vector<std::string> pv_of(const std::string& line) {
  const size_t p = line.find(" pv ");
  std::vector<std::string> out;
  if (p == std::string::npos) return out;
  std::istringstream is(line.substr(p + 4));
  for (std::string w; is >> w;) out.push_back(w);
  return out;
}

// The protocol tests' engine configuration: uniform priors, so they do not depend on the
// bundled net (tests/app/bundled_net_test.cpp tests the default, which plays it).
inline xqzero::Config uniform_config() {
  xqzero::Config c;
  c.mutable_evaluator()->set_weights("uniform");
  return c;
}

// Whether a go command ends by itself (a limit, or perft): a GUI waits for its bestmove.
inline bool finite_go(const std::string& line) {
  std::istringstream is(line);
  std::string w;
  if (!(is >> w) || w != "go") return false;
  bool limited = false;
  while (is >> w) {
    if (w == "infinite" || w == "ponder") return false;
    if (w == "nodes" || w == "movetime" || w == "depth" || w == "wtime" || w == "btime" || w == "perft" || w == "mate")
      limited = true;
  }
  return limited;
}

// Runs a script as a GUI would: one command at a time, waiting for the bestmove of each finite
// go before the next command (a go, setoption or ucinewgame during a search would stop it),
// and quit at the end.
inline std::vector<std::string> session(const std::string& script, const xqzero::Config& config = uniform_config()) {
  std::ostringstream out;
  {
    UciEngine engine(out, config);
    std::istringstream in(script);
    bool quit = false;
    for (std::string line; !quit && std::getline(in, line);) {
      quit = !engine.command(line);
      if (finite_go(line)) engine.wait_idle();
    }
    if (!quit) engine.command("quit");
  }
  return lines_of(out.str());
}

// The same script through loop(), the engine's input loop, all at once (as `printf ... |
// xqzero uci` sends it): the end of the script is the end of input.
inline std::vector<std::string> loop_session(const std::string& script,
                                             const xqzero::Config& config = uniform_config()) {
  std::ostringstream out;
  std::istringstream in(script);
  {
    UciEngine engine(out, config);
    EXPECT_EQ(engine.loop(in), 0);
  }
  return lines_of(out.str());
}

// The last bestmove's move and ponder move.
inline std::pair<std::string, std::string> bestmove(const std::vector<std::string>& lines) {
  const auto b = with_prefix(lines, "bestmove");
  if (b.empty()) return {"", ""};
  return {field("x " + b.back(), "bestmove"), field(b.back(), "ponder")};
}

// The pv of an info line, played from `fen`: its length, and whether it ends the game (no
// legal move: checkmate or stalemate, both lost in Xiangqi).
inline std::pair<size_t, bool> play_pv(const std::string& fen, const std::string& info) {
  Position pos = Position::from_fen(fen);
  const std::string pv = info.substr(info.find(" pv ") + 4);
  std::istringstream is(pv);
  size_t n = 0;
  for (std::string m; is >> m; ++n) {
    UndoInfo u;
    pos.do_move(parse_legal_move(pos, m), u);
  }
  return {n, MoveList(pos).empty()};
}

// The lines a command adds to `out` once the engine is idle again.
inline std::vector<std::string> reply(UciEngine& engine, std::ostringstream& out, const std::string& cmd) {
  const size_t before = out.str().size();
  engine.command(cmd);
  engine.wait_idle();
  return lines_of(out.str().substr(before));
}

}  // namespace xq::app::uci::fixtures
