#include "parallel/rank_costs.hpp"

namespace bouss {

RankCosts& rank_costs() {
  static RankCosts costs;
  return costs;
}

}  // namespace bouss
