// xqzero dump FILE: prints the games of a record file readably.
#include <algorithm>
#include <cstdio>
#include <ostream>

#include "app/args.h"
#include "app/commands.h"
#include "core/move_parse.h"
#include "core/notation_wxf.h"
#include "nn/policy_labels.h"
#include "records/record_io.h"

namespace xq::app {

int cmd_dump(const std::vector<std::string>& argv, std::ostream& out, std::ostream&) {
  const Args args(argv, {"top"}, {});
  if (args.help()) {
    out << "usage: xqzero dump FILE [--top K]\n"
           "Prints each game of a record file: start FEN, result and reason, network and config,\n"
           "then per move: number, ICCS, WXF, root value, visits, whether it is a training target,\n"
           "and the K (default 3) largest policy targets.\n";
    return 0;
  }
  if (args.positional().size() != 1) throw UsageError("expected one record file");
  const int top = int(args.get_int("top", 3, 0, 100));
  const std::string path = args.positional()[0];
  const std::vector<xqzero::GameRecord> games = records::read_record_file(path);
  for (size_t g = 0; g < games.size(); ++g) {
    const xqzero::GameRecord& rec = games[g];
    out << "game " << g + 1 << " of " << games.size() << "\n";
    out << "  start: " << rec.start_fen() << "\n";
    out << "  result: " << rec.result() << " reason: " << rec.termination() << "\n";
    out << "  network: " << rec.network() << "  config: " << rec.config() << "  seed: " << rec.seed()
        << (rec.no_resign() ? "  (no-resign game)" : "") << "\n";
    Position pos;
    try {
      pos = Position::from_fen(rec.start_fen());
    } catch (const std::exception& e) {
      throw std::runtime_error("record file '" + path + "': game " + std::to_string(g + 1) + ": " + e.what());
    }
    for (int i = 0; i < rec.moves_size(); ++i) {
      const xqzero::MoveRecord& mr = rec.moves(i);
      Move m;
      try {
        m = parse_legal_move(pos, mr.move());
      } catch (const std::exception& e) {
        throw std::runtime_error("record file '" + path + "': game " + std::to_string(g + 1) + " move " +
                                 std::to_string(i + 1) + ": " + e.what());
      }
      char head[160];
      std::snprintf(head, sizeof head, "  %3d. %s %-6s value %+.3f visits %4u%s", i + 1, mr.move().c_str(),
                    move_to_wxf(pos, m).c_str(), mr.root_value(), mr.visits(), mr.training_target() ? " target" : "");
      out << head;
      std::vector<std::pair<float, uint32_t>> policy;
      for (int k = 0; k < mr.policy_label_size() && k < mr.policy_weight_size(); ++k)
        policy.emplace_back(mr.policy_weight(k), mr.policy_label(k));
      std::sort(policy.rbegin(), policy.rend());
      for (int k = 0; k < top && k < int(policy.size()); ++k) {
        if (policy[size_t(k)].second >= uint32_t(nn::kNumLabels)) continue;
        char item[48];
        std::snprintf(item, sizeof item, " %s:%.2f",
                      move_to_iccs(nn::move_of(int(policy[size_t(k)].second), pos.side_to_move())).c_str(),
                      policy[size_t(k)].first);
        out << (k == 0 ? "  |" : "") << item;
      }
      out << "\n";
      UndoInfo undo;
      pos.do_move(m, undo);
    }
  }
  return 0;
}

}  // namespace xq::app
