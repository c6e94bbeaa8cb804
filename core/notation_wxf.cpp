#include "core/notation_wxf.h"

#include "core/errors.h"
#include "core/movegen.h"

namespace xq {

RelativeMove describe_move(const Position& pos, Move m) {
  const Square from = m.from(), to = m.to();
  const Piece p = pos.piece_on(from);
  const Color c = color_of(p);
  RelativeMove d;
  d.type = type_of(p);
  d.color = c;
  d.file = relative_file(c, file_of(from));
  d.on_file = 0;
  d.index = 0;
  d.tandem_files = 0;
  for (int f = 0; f < FILE_NB; ++f) {
    int here = 0;
    for (int r = 0; r < RANK_NB; ++r) {
      const Square s = make_square(f, r);
      if (pos.piece_on(s) != p) continue;
      ++here;
      if (f == file_of(from) && relative_rank(c, s) > relative_rank(c, from)) ++d.index;
    }
    if (f == file_of(from)) d.on_file = here;
    d.tandem_files += here >= 2;
  }
  const int forward = c == RED ? rank_of(to) - rank_of(from) : rank_of(from) - rank_of(to);
  d.direction = (forward > 0) - (forward < 0);
  const bool straight = d.type == KING || d.type == CHARIOT || d.type == CANNON || d.type == PAWN;
  d.target = straight && d.direction != 0 ? (forward > 0 ? forward : -forward) : relative_file(c, file_of(to));
  return d;
}

namespace notation_detail {

namespace {

bool picks(const MoveQuery& q, const RelativeMove& d) {
  const int n = d.on_file, i = d.index;
  switch (q.pick) {
    case Pick::FILE:
      if (q.middle_on_file && d.type == PAWN && n >= 3) return n % 2 == 1 && i == n / 2;
      return true;
    case Pick::FRONT: return n >= 2 && i == 0;
    case Pick::REAR: return n >= 2 && i == n - 1;
    case Pick::MIDDLE: return n >= 3 && n % 2 == 1 && i == n / 2;
    case Pick::ORDINAL: return n >= 2 && i == q.ordinal - 1;
    case Pick::WXF_PLUS: return n >= 4 ? i == 1 : n >= 2 && i == 0;
    case Pick::WXF_MINUS: return n >= 4 ? i == n - 2 : n >= 2 && i == n - 1;
    case Pick::WXF_PLUS2: return n >= 4 && i == 0;
    case Pick::WXF_MINUS2: return n >= 4 && i == n - 1;
  }
  return false;
}

}  // namespace

Move resolve(const Position& pos, const MoveQuery& q, const std::string& text, const char* notation) {
  Move found[2];
  int matches = 0;
  for (Move m : MoveList(pos)) {
    if (type_of(pos.piece_on(m.from())) != q.type) continue;
    const RelativeMove d = describe_move(pos, m);
    if ((q.file && d.file != q.file) || d.direction != q.direction || d.target != q.target || !picks(q, d)) continue;
    if (matches < 2) found[matches] = m;
    ++matches;
  }
  const std::string quoted = std::string(notation) + " move '" + clipped(text) + "'";
  if (matches == 0) throw MoveError("no legal " + std::string(color_name(pos.side_to_move())) + " move fits " + quoted);
  if (matches > 1)
    throw MoveError("ambiguous " + quoted + ": it fits " + std::to_string(matches) + " legal moves, such as " +
                    move_to_iccs(found[0]) + " and " + move_to_iccs(found[1]));
  return found[0];
}

}  // namespace notation_detail

namespace {

constexpr const char* kLetters = " KAEHRCP";

PieceType wxf_piece(char c) {
  switch (c) {
    case 'K':
    case 'G': return KING;
    case 'A': return ADVISOR;
    case 'E':
    case 'B':
    case 'M': return ELEPHANT;
    case 'H':
    case 'N': return HORSE;
    case 'R': return CHARIOT;
    case 'C': return CANNON;
    case 'P':
    case 'S': return PAWN;
    default: return NO_PIECE_TYPE;
  }
}

bool is_digit19(char c) { return c >= '1' && c <= '9'; }

}  // namespace

std::string move_to_wxf(const Position& pos, Move m) {
  const RelativeMove d = describe_move(pos, m);
  const char letter = kLetters[d.type];
  const char file = char('0' + d.file);
  const int n = d.on_file, i = d.index;
  std::string s;
  if (n == 1) {
    s = {letter, file};
  } else if (d.type != PAWN) {
    s = {letter, i == 0 ? '+' : '-'};
  } else if (d.tandem_files >= 2) {  // at most three pawns on each of the two files
    s = {file, i == 0 ? '+' : i == n - 1 ? '-' : file};
  } else if (n <= 3) {
    s = i == 0 ? std::string{'P', '+'} : i == n - 1 ? std::string{'P', '-'} : std::string{'P', file};
  } else {  // four or five pawns on one file
    if (i == 0)
      s = "++";
    else if (i == 1)
      s = "P+";
    else if (i == n - 1)
      s = "--";
    else if (i == n - 2)
      s = "P-";
    else
      s = {'P', file};
  }
  s += d.direction > 0 ? '+' : d.direction < 0 ? '-' : '.';
  s += char('0' + d.target);
  return s;
}

Move parse_wxf(const Position& pos, const std::string& text) {
  using notation_detail::Pick;
  auto bad = [&](const std::string& why) { return MoveError("malformed WXF move '" + clipped(text) + "': " + why); };
  std::string s;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    if (static_cast<unsigned char>(c) >= 0x80) throw bad("only ASCII letters, digits and + - . = are allowed");
    s += (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c;
  }
  if (s.size() == 3 && wxf_piece(s[0]) != NO_PIECE_TYPE && is_digit19(s[1]) && is_digit19(s[2]))
    s.insert(2, 1, '.');  // "C25": sideways without an operator
  if (s.size() != 4) throw bad("expected 4 characters such as C2.5, H8+7 or R+.3");

  notation_detail::MoveQuery q;
  const char a = s[0], b = s[1];
  const bool sign_a = a == '+' || a == '-', sign_b = b == '+' || b == '-';
  if (wxf_piece(a) != NO_PIECE_TYPE && is_digit19(b)) {
    q.type = wxf_piece(a);
    q.file = b - '0';
    q.middle_on_file = true;
  } else if (wxf_piece(a) != NO_PIECE_TYPE && sign_b) {
    q.type = wxf_piece(a);
    q.pick = b == '+' ? Pick::WXF_PLUS : Pick::WXF_MINUS;
  } else if (sign_a && wxf_piece(b) != NO_PIECE_TYPE) {
    q.type = wxf_piece(b);
    q.pick = a == '+' ? Pick::WXF_PLUS : Pick::WXF_MINUS;
  } else if (sign_a && b == a) {
    q.type = PAWN;
    q.pick = a == '+' ? Pick::WXF_PLUS2 : Pick::WXF_MINUS2;
  } else if (is_digit19(a) && sign_b) {
    q.type = PAWN;
    q.file = a - '0';
    q.pick = b == '+' ? Pick::WXF_PLUS : Pick::WXF_MINUS;
  } else if (is_digit19(a) && b == a) {
    q.type = PAWN;
    q.file = a - '0';
    q.middle_on_file = true;
  } else {
    throw bad(std::string("cannot read the piece from '") + a + b +
              "' (a piece letter K A E H R C P with a file 1..9, or + / - for tandem pieces)");
  }
  switch (s[2]) {
    case '+': q.direction = 1; break;
    case '-': q.direction = -1; break;
    case '.':
    case '=': q.direction = 0; break;
    default: throw bad(std::string("direction '") + s[2] + "' is not + - . or =");
  }
  if (!is_digit19(s[3])) throw bad(std::string("'") + s[3] + "' is not a digit 1..9");
  q.target = s[3] - '0';
  const bool diagonal = q.type == ADVISOR || q.type == ELEPHANT || q.type == HORSE;
  if (diagonal && q.direction == 0) throw bad(std::string("a ") + piece_type_name(q.type) + " cannot move sideways");
  return notation_detail::resolve(pos, q, text, "WXF");
}

}  // namespace xq
