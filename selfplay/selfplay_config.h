// From the Protobuf configuration (proto/config.proto) to search and self-play options.
#pragma once

#include "config.pb.h"
#include "nn/evaluator.h"
#include "search/search.h"
#include "selfplay/selfplay.h"

namespace xq::selfplay {

// Throw std::invalid_argument naming the first bad field, e.g.
// "search.c_puct_init = -1 is out of range 0..10".
void validate(const xqzero::SearchConfig& config);
void validate(const xqzero::SelfplayConfig& config);

search::SearchParams search_params(const xqzero::SearchConfig& config);
SelfplayOptions selfplay_options(const xqzero::Config& config);
// What self-play asks of the evaluator of each net: every game's leaves in flight, from
// selfplay.threads threads (each submitting all its games' leaves in one call).
nn::Callers selfplay_callers(const xqzero::Config& config);

}  // namespace xq::selfplay
