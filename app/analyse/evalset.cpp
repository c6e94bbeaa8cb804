#include "app/analyse/evalset.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/errors.h"
#include "core/game.h"
#include "core/move_parse.h"
#include "util/text.h"

namespace xq::app::analyse {

namespace {

// Score buckets of the calibration table, in centipawns.
const int kEdges[] = {-100000, -1000, -300, -100, 100, 300, 1000, 100001};

// The rank (1 = first) of `target` when `score` orders the candidates, ties counted against
// it: a uniform policy does not "agree" with any move.
template <typename Score>
int rank_of(const std::vector<Move>& moves, Move target, Score score) {
  auto it = std::find(moves.begin(), moves.end(), target);
  if (it == moves.end()) return int(moves.size()) + 1;
  const auto s = score(size_t(it - moves.begin()));
  int rank = 1;
  for (size_t i = 0; i < moves.size(); ++i)
    if (moves[i] != target && score(i) >= s) ++rank;
  return rank;
}

struct Scored {
  int policy_rank = 0, search_rank = 0;
  float value = 0, draw = 0;  // W - L and D for the side to move
};

Scored score_position(const LabelledPosition& p, nn::Evaluator& evaluator, const EvalsetOptions& o, uint64_t seed) {
  Game game(p.fen);
  Scored s;
  const nn::EvalInput input = nn::make_eval_input(game.position(), game.repetition_count());
  const nn::EvalRequest request = input.request();
  nn::EvalResult raw;
  evaluator.evaluate(nn::Span<const nn::EvalRequest>(&request, 1), nn::Span<nn::EvalResult>(&raw, 1));
  const std::vector<Move> moves(input.moves.begin(), input.moves.begin() + input.n_labels);
  s.policy_rank = rank_of(moves, p.best, [&](size_t i) { return raw.priors[i]; });
  s.value = raw.wdl[0] - raw.wdl[2];
  s.draw = raw.wdl[1];
  if (o.visits > 0) {
    search::Search search(o.search, seed);
    const search::SearchResult r = search.run(game, evaluator, o.visits, false, o.leaves_per_round);
    // The search's order: its choice first, then by visits, then by value.
    std::vector<Move> root;
    std::vector<double> key;
    for (const search::RootMove& m : r.moves) {
      root.push_back(m.move);
      key.push_back(m.move == r.best ? 1e12 : double(m.visits) + 0.5 * (double(m.q) + 1) / 2);
    }
    s.search_rank = rank_of(root, p.best, [&](size_t i) { return key[i]; });
    s.value = r.value;
    s.draw = r.proven != search::Proven::NONE ? (r.proven == search::Proven::DRAW ? 1.0f : 0.0f) : r.draw;
  }
  return s;
}

}  // namespace

std::vector<LabelledPosition> parse_evalset(const std::string& text, const std::string& name) {
  std::vector<LabelledPosition> out;
  std::istringstream is(text);
  int n = 0;
  for (std::string line; std::getline(is, line);) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    auto fail = [&](const std::string& why) {
      throw std::invalid_argument("evalset '" + name + "' line " + std::to_string(n) + ": " + why);
    };
    const std::vector<std::string> f = split_fields(line, '\t');
    if (f.size() < 2 || f.size() > 3) fail("expected FEN<TAB>move[<TAB>score], got '" + clipped(line) + "'");
    LabelledPosition p;
    p.fen = f[0];
    p.line = n;
    try {
      const Position pos = Position::from_fen(p.fen);
      p.best = parse_legal_move(pos, f[1]);
    } catch (const std::exception& e) {
      fail(e.what());
    }
    if (f.size() == 3) {
      size_t used = 0;
      long long cp = 0;
      try {
        cp = std::stoll(f[2], &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != f[2].size() || cp < -100000 || cp > 100000)
        fail("score '" + clipped(f[2]) + "' is not an integer in -100000..100000 (centipawns)");
      p.has_score = true;
      p.score_cp = int(cp);
    }
    out.push_back(p);
  }
  if (out.empty()) throw std::invalid_argument("evalset '" + name + "': no positions");
  return out;
}

EvalsetReport score_evalset(const std::vector<LabelledPosition>& set, nn::Evaluator& evaluator,
                            const EvalsetOptions& options) {
  std::vector<Scored> scored(set.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  std::exception_ptr error;
  std::mutex error_mutex;
  for (int t = 0; t < std::max(1, options.threads); ++t)
    threads.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < set.size();) {
        try {
          scored[i] = score_position(set[i], evaluator, options, 0x5EED + i);
        } catch (...) {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (!error) error = std::current_exception();
          next = set.size();
        }
      }
    });
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);

  EvalsetReport r;
  r.positions = int(set.size());
  r.visits = options.visits;
  for (size_t b = 0; b + 1 < std::size(kEdges); ++b) {
    EvalsetReport::Bucket bucket;
    bucket.lo = kEdges[b];
    bucket.hi = kEdges[b + 1];
    r.calibration.push_back(bucket);
  }
  for (size_t i = 0; i < set.size(); ++i) {
    const Scored& s = scored[i];
    r.policy_top1 += s.policy_rank == 1;
    r.policy_top3 += s.policy_rank <= 3;
    r.search_top1 += options.visits > 0 && s.search_rank == 1;
    r.search_top3 += options.visits > 0 && s.search_rank <= 3;
    if (!set[i].has_score) continue;
    ++r.scored;
    const int cp = set[i].score_cp;
    if (std::abs(cp) >= options.sign_threshold_cp) {
      ++r.sign_positions;
      r.sign_agree += (s.value > 0) == (cp > 0) && s.value != 0;
    }
    for (EvalsetReport::Bucket& b : r.calibration)
      if (cp >= b.lo && cp < b.hi) {
        const double w = (1 - s.draw + s.value) / 2, l = (1 - s.draw - s.value) / 2;
        ++b.count;
        b.win += (w - b.win) / b.count;
        b.draw += (s.draw - b.draw) / b.count;
        b.loss += (l - b.loss) / b.count;
      }
  }
  return r;
}

std::string format_report(const EvalsetReport& r) {
  std::ostringstream os;
  char buf[200];
  auto share = [&](const char* what, int k, int n) {
    std::snprintf(buf, sizeof buf, "%-30s %6.3f  (%d of %d)\n", what, n ? double(k) / n : 0.0, k, n);
    os << buf;
  };
  os << "positions " << r.positions << ", " << (r.visits > 0 ? std::to_string(r.visits) + " visits" : "raw network")
     << "\n";
  share("policy top-1 agreement", r.policy_top1, r.positions);
  share("policy top-3 agreement", r.policy_top3, r.positions);
  if (r.visits > 0) {
    share("search top-1 agreement", r.search_top1, r.positions);
    share("search top-3 agreement", r.search_top3, r.positions);
  }
  share("value sign agreement", r.sign_agree, r.sign_positions);
  if (r.scored > 0) {
    os << "calibration (reference score, side to move)   count      W      D      L\n";
    for (const EvalsetReport::Bucket& b : r.calibration) {
      if (b.count == 0) continue;
      const std::string range = (b.lo <= -100000 ? std::string("      ") : std::to_string(b.lo)) + " .. " +
                                (b.hi > 100000 ? std::string("") : std::to_string(b.hi));
      std::snprintf(buf, sizeof buf, "  %-42s %7d  %5.3f  %5.3f  %5.3f\n", range.c_str(), b.count, b.win, b.draw,
                    b.loss);
      os << buf;
    }
  }
  return os.str();
}

}  // namespace xq::app::analyse
