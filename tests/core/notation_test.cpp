// WXF and Chinese notation: the conventional forms, tandem pieces and pawns, input variants,
// ambiguity and malformed input, and round trips over many random legal positions.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/errors.h"
#include "core/move_parse.h"
#include "core/movegen.h"
#include "core/notation_chinese.h"
#include "core/notation_wxf.h"

namespace xq {
namespace {

struct Case {
  const char* iccs;
  const char* wxf;
  const char* chinese;
};

// Writes each move both ways and reads both back.
void check_cases(const std::string& fen, std::initializer_list<Case> cases) {
  const Position pos = Position::from_fen(fen);
  for (const Case& c : cases) {
    const Move m = parse_legal_move(pos, c.iccs);
    EXPECT_EQ(move_to_wxf(pos, m), c.wxf) << fen << " " << c.iccs;
    EXPECT_EQ(move_to_chinese(pos, m), c.chinese) << fen << " " << c.iccs;
    EXPECT_EQ(move_to_iccs(parse_wxf(pos, c.wxf)), c.iccs) << fen << " " << c.wxf;
    EXPECT_EQ(move_to_iccs(parse_chinese(pos, c.chinese)), c.iccs) << fen << " " << c.chinese;
  }
}

std::string wxf_error(const std::string& fen, const std::string& text) {
  try {
    parse_wxf(Position::from_fen(fen), text);
  } catch (const MoveError& e) {
    return e.what();
  }
  return "";
}

std::string chinese_error(const std::string& fen, const std::string& text) {
  try {
    parse_chinese(Position::from_fen(fen), text);
  } catch (const MoveError& e) {
    return e.what();
  }
  return "";
}

const std::string kStart = Position::kStartFen;

TEST(Notation, StartPositionRed) {
  check_cases(kStart, {
                          {"h2e2", "C2.5", "炮二平五"},
                          {"b2e2", "C8.5", "炮八平五"},
                          {"h2h9", "C2+7", "炮二进七"},
                          {"h0g2", "H2+3", "马二进三"},
                          {"b0c2", "H8+7", "马八进七"},
                          {"i0i1", "R1+1", "车一进一"},
                          {"g0e2", "E3+5", "相三进五"},
                          {"f0e1", "A4+5", "仕四进五"},
                          {"e0e1", "K5+1", "帅五进一"},
                          {"c3c4", "P7+1", "兵七进一"},
                      });
}

TEST(Notation, BlackCountsFilesFromItsOwnRightWithArabicDigits) {
  const std::string fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b";
  check_cases(fen, {
                       {"h9g7", "H8+7", "马8进7"},
                       {"b9c7", "H2+3", "马2进3"},
                       {"h7e7", "C8.5", "炮8平5"},
                       {"b7b0", "C2+7", "炮2进7"},
                       {"i9i8", "R9+1", "车9进1"},
                       {"a9a8", "R1+1", "车1进1"},
                       {"g6g5", "P7+1", "卒7进1"},
                       {"c6c5", "P3+1", "卒3进1"},
                       {"f9e8", "A6+5", "士6进5"},
                       {"d9e8", "A4+5", "士4进5"},
                       {"g9e7", "E7+5", "象7进5"},
                       {"c9e7", "E3+5", "象3进5"},
                       {"e9e8", "K5+1", "将5进1"},
                   });
}

TEST(Notation, BackwardMoves) {
  const std::string fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w";
  check_cases(fen, {{"e2e1", "C5-1", "炮五退一"}});
  check_cases("rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b",
              {{"g7h9", "H7-8", "马7退8"}, {"h7h8", "C8-1", "炮8退1"}});
}

TEST(Notation, TandemPieces) {
  // Red chariots on a3 (front) and a0 (rear), file 9.
  const std::string red = "4k4/9/9/9/9/9/R8/9/9/R2K5 w";
  check_cases(red, {
                       {"a3a5", "R++2", "前车进二"},
                       {"a3b3", "R+.8", "前车平八"},
                       {"a3a1", "R+-2", "前车退二"},
                       {"a0a1", "R-+1", "后车进一"},
                       {"a0c0", "R-.7", "后车平七"},
                   });
  // The other spellings of the same moves.
  const Position pos = Position::from_fen(red);
  EXPECT_EQ(move_to_iccs(parse_wxf(pos, "+R+2")), "a3a5");
  EXPECT_EQ(move_to_iccs(parse_wxf(pos, "-R.7")), "a0c0");
  EXPECT_EQ(move_to_iccs(parse_wxf(pos, "R9-2")), "a3a1");  // only the front one can go back
  EXPECT_EQ(move_to_iccs(parse_chinese(pos, "前車進二")), "a3a5");
  EXPECT_EQ(move_to_iccs(parse_chinese(pos, "後俥進一")), "a0a1");
  // Black chariots on a6 (front, nearer Red) and a9, Black's file 1.
  check_cases("r3k4/9/9/r8/9/9/9/9/9/3K5 b", {
                                                 {"a6a5", "R++1", "前车进1"},
                                                 {"a9a8", "R-+1", "后车进1"},
                                                 {"a6b6", "R+.2", "前车平2"},
                                             });
  // Horses and cannons on one file.
  check_cases("4k4/9/9/9/9/9/1N7/9/1N7/3K5 w", {{"b3c5", "H++7", "前马进七"}, {"b1a3", "H-+9", "后马进九"}});
  check_cases("4k4/9/9/9/9/9/2C6/9/2C6/3K5 w", {{"c3c9", "C++6", "前炮进六"}, {"c1d1", "C-.6", "后炮平六"}});
}

TEST(Notation, TandemPawnsOnOneFile) {
  // Three red pawns on file c (Red's 7): front, middle (written with its file), rear.
  check_cases("4k4/9/2P6/2P6/2P6/9/9/9/9/3K5 w", {
                                                     {"c7b7", "P+.8", "前兵平八"},
                                                     {"c7c8", "P++1", "前兵进一"},
                                                     {"c6b6", "P7.8", "中兵平八"},
                                                     {"c5d5", "P-.6", "后兵平六"},
                                                 });
  // Five: ++, P+, P<file>, P-, -- and 一 .. 五 from the front.
  check_cases("2P1k4/2P6/2P6/2P6/2P6/9/9/9/9/3K5 w", {
                                                         {"c9b9", "++.8", "一兵平八"},
                                                         {"c8b8", "P+.8", "二兵平八"},
                                                         {"c7d7", "P7.6", "三兵平六"},
                                                         {"c6b6", "P-.8", "四兵平八"},
                                                         {"c5b5", "--.8", "五兵平八"},
                                                     });
  // Four: no middle pawn.
  check_cases("4k4/2P6/2P6/2P6/2P6/9/9/9/9/3K5 w", {
                                                       {"c8b8", "++.8", "一兵平八"},
                                                       {"c7b7", "P+.8", "二兵平八"},
                                                       {"c6d6", "P-.6", "三兵平六"},
                                                       {"c5b5", "--.8", "四兵平八"},
                                                   });
  // Black pawns: the front one is nearer Red.
  check_cases("4k4/9/9/9/9/2p6/2p6/9/9/3K5 b", {{"c3c2", "P++1", "前卒进1"}, {"c4b4", "P-.2", "后卒平2"}});
}

TEST(Notation, TandemPawnsOnTwoFiles) {
  // Red pawns c7 c6 c5 (file 7) and g6 g5 (file 3): the file digit leads, the piece is left out.
  check_cases("4k4/9/2P6/2P3P2/2P3P2/9/9/9/9/3K5 w", {
                                                         {"c7c8", "7++1", "前七进一"},
                                                         {"c6b6", "77.8", "中七平八"},
                                                         {"c5b5", "7-.8", "后七平八"},
                                                         {"g6g7", "3++1", "前三进一"},
                                                         {"g5h5", "3-.2", "后三平二"},
                                                         {"c6d6", "77.6", "中七平六"},
                                                     });
  const Position pos = Position::from_fen("4k4/9/2P6/2P3P2/2P3P2/9/9/9/9/3K5 w");
  EXPECT_EQ(move_to_iccs(parse_chinese(pos, "前兵三进一")), "g6g7");
  EXPECT_EQ(move_to_iccs(parse_chinese(pos, "前卒七进一")), "c7c8");
  EXPECT_THROW(parse_wxf(pos, "P3-.2"), MoveError);  // the two-file form has no piece letter
}

TEST(Notation, InputVariants) {
  const Position pos;
  for (const char* t : {"C2.5", "C2=5", "c2.5", "C25", " C2.5 "})
    EXPECT_EQ(move_to_iccs(parse_wxf(pos, t)), "h2e2") << t;
  for (const char* t : {"N8+7", "h8+7"}) EXPECT_EQ(move_to_iccs(parse_wxf(pos, t)), "b0c2") << t;
  for (const char* t : {"B3+5", "M3+5"}) EXPECT_EQ(move_to_iccs(parse_wxf(pos, t)), "g0e2") << t;
  EXPECT_EQ(move_to_iccs(parse_wxf(pos, "G5+1")), "e0e1");
  EXPECT_EQ(move_to_iccs(parse_wxf(pos, "S3+1")), "g3g4");
  for (const char* t : {"炮二平五", "砲二平五", "包二平五", "炮2平5", "炮２平５", "炮 二 平 五", "炮二　平五"})
    EXPECT_EQ(move_to_iccs(parse_chinese(pos, t)), "h2e2") << t;
  for (const char* t : {"马八进七", "馬八進七", "傌八进七", "马8进7"})
    EXPECT_EQ(move_to_iccs(parse_chinese(pos, t)), "b0c2") << t;
  for (const char* t : {"车一进一", "車一進一", "俥一进一"})
    EXPECT_EQ(move_to_iccs(parse_chinese(pos, t)), "i0i1") << t;
  for (const char* t : {"帅五进一", "帥五进一", "将五进一"})
    EXPECT_EQ(move_to_iccs(parse_chinese(pos, t)), "e0e1") << t;
  for (const char* t : {"相三进五", "象三进五"}) EXPECT_EQ(move_to_iccs(parse_chinese(pos, t)), "g0e2") << t;
  for (const char* t : {"仕四进五", "士四进五"}) EXPECT_EQ(move_to_iccs(parse_chinese(pos, t)), "f0e1") << t;
  for (const char* t : {"兵三进一", "卒三进一"}) EXPECT_EQ(move_to_iccs(parse_chinese(pos, t)), "g3g4") << t;
}

TEST(Notation, AmbiguousInputIsRejected) {
  // Both chariots on file 9 can go forward one point, or to file 8.
  const std::string red = "4k4/9/9/9/9/9/R8/9/9/R2K5 w";
  for (const char* t : {"R9+1", "R9.8"}) {
    const std::string e = wxf_error(red, t);
    EXPECT_NE(e.find("ambiguous WXF move '" + std::string(t) + "'"), std::string::npos) << e;
    EXPECT_NE(e.find("2 legal moves"), std::string::npos) << e;
  }
  EXPECT_NE(chinese_error(red, "车九进一").find("ambiguous Chinese move '车九进一'"), std::string::npos);
  EXPECT_NE(wxf_error(red, "R9+1").find("a0a1"), std::string::npos);
  // Two pawns on one file named by the file alone.
  EXPECT_NE(chinese_error("4k4/9/9/2P6/2P6/9/9/9/9/3K5 w", "兵七平八").find("ambiguous"), std::string::npos);
  // Four pawns on a file have no middle one.
  EXPECT_NE(wxf_error("4k4/2P6/2P6/2P6/2P6/9/9/9/9/3K5 w", "P7.8").find("no legal red move fits"), std::string::npos);
}

TEST(Notation, MalformedInputGivesClearErrors) {
  const struct {
    const char* text;
    const char* needle;
  } wxf[] = {
      {"", "expected 4 characters"},
      {"C2.55", "expected 4 characters"},
      {"Z2.5", "cannot read the piece from 'Z2'"},
      {"C0.5", "cannot read the piece"},
      {"C2*5", "direction '*'"},
      {"C2.0", "'0' is not a digit 1..9"},
      {"H2.3", "a horse cannot move sideways"},
      {"C2.5\xff", "only ASCII"},
      {"C7.5", "no legal red move fits WXF move 'C7.5'"},
      {"+-.5", "cannot read the piece"},
      {"12.3", "cannot read the piece"},
  };
  for (const auto& c : wxf) {
    const std::string e = wxf_error(kStart, c.text);
    EXPECT_NE(e.find(c.needle), std::string::npos) << "'" << c.text << "' gave: " << e;
  }
  const struct {
    const char* text;
    const char* needle;
  } chinese[] = {
      {"", "expected 4 characters"},
      {"炮二平", "expected 4 characters"},
      {"炮二平五五五", "expected 4 characters"},
      {"\xe7\x82", "not valid UTF-8"},
      {"\xff\xfe\xfd\xfc", "not valid UTF-8"},
      {"猫二平五", "cannot read the piece"},
      {"炮十平五", "'十' is not a file number"},
      {"炮二走五", "'走' is not 进, 退 or 平"},
      {"炮二平零", "'零' is not a number 1..9"},
      {"马二平三", "a horse cannot move sideways"},
      {"二车进一", "only pawns are counted"},
      {"炮七平五", "no legal red move fits Chinese move '炮七平五'"},
      {"前兵兵进一", "is not a file number"},
      {"兵兵三进一", "a five-character move starts with"},
  };
  for (const auto& c : chinese) {
    const std::string e = chinese_error(kStart, c.text);
    EXPECT_NE(e.find(c.needle), std::string::npos) << "'" << c.text << "' gave: " << e;
  }
}

// Random legal positions: kings in their palaces and a random army, with pawns crowded on
// a few files so that tandem pawns (on one file and on two) are common.
Position random_position(std::mt19937& rng) {
  for (;;) {
    Position pos{Position::EmptyBoard{}};
    auto pick = [&](int n) { return int(rng() % unsigned(n)); };
    pos.put_piece(make_piece(RED, KING), make_square(3 + pick(3), pick(3)));
    pos.put_piece(make_piece(BLACK, KING), make_square(3 + pick(3), 7 + pick(3)));
    const PieceType kinds[] = {ADVISOR, ELEPHANT, HORSE, CHARIOT, CANNON, PAWN, PAWN, PAWN};
    const int n = 4 + pick(20);
    for (int i = 0; i < n; ++i) {
      const Color c = Color(pick(2));
      const PieceType t = kinds[pick(8)];
      Square s = pick(SQUARE_NB);
      if (t == PAWN && pick(3)) s = make_square(2 + 4 * pick(2), c == RED ? 5 + pick(5) : pick(5));
      if (pos.empty(s) && pos.count(c, t) < (t == PAWN ? 5 : 2)) pos.put_piece(make_piece(c, t), s);
    }
    pos.set_side_to_move(Color(pick(2)));
    try {
      return Position::from_fen(pos.fen());  // rejects impossible squares, check on the side not to move
    } catch (const FenError&) {
    }
  }
}

// Traditional characters and full-width digits for the same move.
std::string traditional(std::string s) {
  const std::pair<const char*, const char*> swaps[] = {
      {"马", "馬"}, {"车", "車"}, {"炮", "砲"}, {"帅", "帥"}, {"将", "將"},
      {"进", "進"}, {"后", "後"}, {"1", "１"},  {"5", "５"},  {"9", "９"},
  };
  for (const auto& [from, to] : swaps)
    for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, std::string(from).size(), to);
  return s;
}

int round_trip_all(const Position& pos) {
  int n = 0;
  for (Move m : MoveList(pos)) {
    const std::string w = move_to_wxf(pos, m), c = move_to_chinese(pos, m);
    EXPECT_EQ(parse_wxf(pos, w), m) << pos.fen() << " " << move_to_iccs(m) << " " << w;
    EXPECT_EQ(parse_chinese(pos, c), m) << pos.fen() << " " << move_to_iccs(m) << " " << c;
    EXPECT_EQ(parse_chinese(pos, traditional(c)), m) << pos.fen() << " " << traditional(c);
    ++n;
  }
  return n;
}

TEST(Notation, RoundTripRandomPositions) {
  std::mt19937 rng(12345);
  int moves = 0, tandem_pawn_moves = 0, two_file_moves = 0;
  for (int i = 0; i < 700; ++i) {
    const Position pos = random_position(rng);
    moves += round_trip_all(pos);
    for (Move m : MoveList(pos)) {
      const RelativeMove d = describe_move(pos, m);
      tandem_pawn_moves += d.type == PAWN && d.on_file >= 3;
      two_file_moves += d.type == PAWN && d.on_file >= 2 && d.tandem_files >= 2;
    }
  }
  EXPECT_GT(moves, 7000);
  EXPECT_GT(tandem_pawn_moves, 60) << moves;  // the awkward cases really were exercised
  EXPECT_GT(two_file_moves, 25) << moves;
}

TEST(Notation, RoundTripRandomGames) {
  std::mt19937 rng(777);
  int moves = 0;
  for (int game = 0; game < 6; ++game) {
    Position pos;
    for (int ply = 0; ply < 120; ++ply) {
      const MoveList list(pos);
      if (list.empty()) break;
      moves += round_trip_all(pos);
      UndoInfo undo;
      pos.do_move(list[int(rng() % unsigned(list.size()))], undo);
    }
  }
  EXPECT_GT(moves, 15000);
}

// Hardening: nasty input to every parser fails with FenError / MoveError and a message, never
// another exception or a crash. (fuzz/fuzz_parse.cpp explores this further; inputs it finds
// belong here.)
TEST(FuzzRegression, BadInputOnlyThrowsParseErrors) {
  const std::string nul(
      "C2\0"
      "5",
      4);
  const std::string inputs[] = {
      "",
      " ",
      "\n",
      nul,
      std::string(1000, '+'),
      std::string(300, 'P'),
      "\xff",
      "\xe7\x82\xae\xe4",
      "\xf4\x90\x80\x80\xf4\x90\x80\x80",
      "\xc0\xaf\xc0\xaf\xc0\xaf\xc0\xaf",
      "炮",
      "前前前前",
      "一二三四",
      "++++",
      "----",
      "P+++",
      "9999",
      "+P+P",
      "R+.",
      ".+R1",
      "=2=5",
      "前中后进",
      "进进进进",
      "1卒进1",
      "五兵进一",
      "后三平二",
      "炮\xe4\xba平五",
      "h2e2",
      "H2E2",
      "i9i9",
  };
  const Position positions[] = {Position(), Position::from_fen("4k4/9/2P6/2P3P2/2P3P2/9/9/9/9/3K5 w"),
                                Position::from_fen("2P1k4/2P6/2P6/2P6/2P6/9/9/9/9/3K5 w")};
  for (const Position& pos : positions)
    for (const std::string& t : inputs) {
      for (int which = 0; which < 3; ++which) {
        try {
          const Move m = which == 0 ? parse_legal_move(pos, t) : which == 1 ? parse_wxf(pos, t) : parse_chinese(pos, t);
          EXPECT_TRUE(is_legal(pos, m)) << t;
        } catch (const MoveError& e) {
          EXPECT_NE(std::string(e.what()), "") << t;
        }
      }
    }
  for (const std::string& fen :
       {std::string("4k4/9/9/9/9/9/9/9/9/4K4"), std::string(5000, '/'),
        std::string("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 99999999 1"),
        std::string("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 0"), std::string("\xff\xfe w"),
        std::string("9/9/9/9/9/9/9/9/9/9 w"), std::string("4k4/9/9/9/9/9/9/9/9/3K5 x")}) {
    try {
      Position::from_fen(fen);
      ADD_FAILURE() << "accepted " << fen;
    } catch (const FenError& e) {
      EXPECT_NE(std::string(e.what()).find("bad FEN"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace xq
