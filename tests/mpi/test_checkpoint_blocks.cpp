// Run under mpirun with 1 to 4 ranks (tests/CMakeLists.txt): a checkpoint written by every
// rank at once, each its own block (parallel NetCDF), is the file one rank writes of the
// whole arrays; and a rank reads back its block alone, as one hyperslab per array.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "grid/gather.hpp"
#include "grid/grid.hpp"
#include "io/checkpoint.hpp"
#include "io/netcdf_handles.hpp"
#include "mpi_support.hpp"

namespace bouss {
namespace {

// A value for every global point (I, J, K) of an array on location s, no two alike.
double value_at(int I, int J, int K, int s) { return std::sin(0.37 * I + 1.3 * s) + 0.01 * J * J - 0.3 * K + 1e-3 * I * J * K; }

// The values of box b of location s (x fastest).
std::vector<double> values_of(const Box& b, int s) {
  std::vector<double> v;
  for (int k = b.lo[2]; k < b.hi[2]; ++k)
    for (int j = b.lo[1]; j < b.hi[1]; ++j)
      for (int i = b.lo[0]; i < b.hi[0]; ++i) v.push_back(value_at(i, j, k, s));
  return v;
}

const char* const kNames[4] = {"theta", "u", "v", "w"};  // centres, faces along x, y, z
// Two region arrays (a time average's sums): over centres, and over faces along y.
const Box kRegions[2] = {{{2, 1, 0}, {12, 9, 5}}, {{0, 3, 1}, {13, 11, 6}}};
const int kRegionStaggers[2] = {-1, 1};

// A checkpoint of a 13 x 10 x 6 grid (uneven cuts) with the four locations, a flat array
// and the driver's scalars and strings; grid arrays over `boxes` (the whole arrays without).
Checkpoint example(const std::array<Box, 4>* boxes) {
  Checkpoint c;
  c.provenance = "test";
  c.case_json = "{}";
  c.case_source = "blocks.json";
  c.n = {13, 10, 6};
  c.time = 1.25;
  c.last_dt = 0.01;
  c.step = 125;
  c.output_records = 3;
  c.series_records = 7;
  for (int s = 0; s < 4; ++s) {
    Box whole{{0, 0, 0}, {c.n[0] + (s == 1), c.n[1] + (s == 2), c.n[2] + (s == 3)}};
    c.arrays.push_back({kNames[s], s - 1, values_of(boxes ? (*boxes)[std::size_t(s)] : whole, s), Box{}});
  }
  // A region array's values: those of the region's points in the box (its own values function).
  for (int r = 0; r < 2; ++r) {
    const int s = kRegionStaggers[r] + 1;
    const Box part = boxes ? intersect(kRegions[r], (*boxes)[std::size_t(s)]) : kRegions[r];
    c.arrays.push_back({"average_sum" + std::to_string(r), s - 1, values_of(part, 10 + r), kRegions[r]});
  }
  c.arrays.push_back({"average_profiles", CheckpointArray::flat_array, {0.5, -1.5, 2.5, 1e-300}, Box{}});
  c.state["schedule.next"] = 1.5;
  c.text["output_path"] = "out/blocks.nc";
  return c;
}

TEST(MpiCheckpoint, EveryRankWritesItsBlockOfOneRanksFileAndReadsItsBlockBack) {
  const auto world = Communicator::world();
  if (!ranks_write_one_file(*world)) {
    if (world->size() > 1) GTEST_SKIP() << "this build writes checkpoints through rank 0 (no parallel NetCDF)";
    GTEST_SKIP() << "one rank: its checkpoints are the whole file (tests/unit)";
  }
  const Checkpoint whole = example(nullptr);
  // One folder for every rank: rank 0's name, a pid of its own.
  std::string dir = (std::filesystem::temp_directory_path() / ("bouss_ck_blocks_" + std::to_string(::getpid()))).string();
  std::uint64_t size = dir.size();
  world->broadcast(&size, sizeof size, 0);
  dir.resize(size);
  world->broadcast(&dir[0], size, 0);
  if (world->rank() == 0) {
    std::filesystem::create_directories(dir);
    write_checkpoint(dir + "/one.checkpoint.1.nc", whole);  // one rank's, of the whole arrays
  }
  for (const std::array<int, 2>& dims : process_grids(world->size(), whole.n)) {
    const Decomposition d = Decomposition::make(whole.n, {true, false, false}, world->size(), world->rank(), dims);
    const Grid part = Grid::make(whole.n, {0, 0, 0}, {1, 1, 1}).part(d);
    CheckpointBlock supplied, block;
    supplied.n = block.n = whole.n;
    block.shares = std::array<Box, 4>{};
    for (int s = 0; s < 4; ++s) {
      supplied.boxes[std::size_t(s)] = (*block.shares)[std::size_t(s)] = supplied_box_of_rank(d, world->rank(), Stagger(s));
      block.boxes[std::size_t(s)] = block_box(part, Stagger(s));
    }
    Checkpoint mine = example(&supplied.boxes);
    if (world->rank() != 0) {  // only rank 0 holds the flat arrays and knows the counts
      mine.arrays.pop_back();
      mine.output_records = mine.series_records = 0;
    }
    const std::string path = dir + "/blocks.checkpoint.1.nc";
    write_checkpoint(path, mine, supplied, *world);
    const std::string on = std::to_string(dims[0]) + "x" + std::to_string(dims[1]);
    if (world->rank() == 0) {
      const Checkpoint one = read_checkpoint(dir + "/one.checkpoint.1.nc"), all = read_checkpoint(path);
      ASSERT_EQ(all.arrays.size(), one.arrays.size()) << on;
      for (std::size_t i = 0; i < one.arrays.size(); ++i) {
        EXPECT_EQ(all.arrays[i].name, one.arrays[i].name) << on;
        EXPECT_EQ(all.arrays[i].stagger, one.arrays[i].stagger) << on;
        EXPECT_EQ(all.arrays[i].values, one.arrays[i].values) << one.arrays[i].name << " on " << on;
      }
      EXPECT_EQ(all.state, one.state);
      EXPECT_EQ(all.text, one.text);
      EXPECT_EQ(all.output_records, 3);
      EXPECT_EQ(all.series_records, 7);
      EXPECT_EQ(all.step, one.step);
      EXPECT_EQ(all.time, one.time);
      EXPECT_EQ(all.arrays[4].region.lo, kRegions[0].lo);
      EXPECT_EQ(all.arrays[5].region.hi, kRegions[1].hi);
      // Where the cut along an axis is even, every chunk of the whole arrays lies in one
      // rank's block (each rank then writes its own chunks alone).
      int ncid = -1;
      ASSERT_EQ(nc_open(path.c_str(), NC_NOWRITE, &ncid), NC_NOERR);
      for (int s = 0; s < 4; ++s) {
        int varid = -1, storage = 0;
        std::size_t chunk[3] = {0, 0, 0};
        ASSERT_EQ(nc_inq_varid(ncid, kNames[s], &varid), NC_NOERR);
        ASSERT_EQ(nc_inq_var_chunking(ncid, varid, &storage, chunk), NC_NOERR);
        for (int a = 0; a < 2; ++a) {
          std::set<int> cuts;
          for (int p = 0; p < world->size(); ++p) {
            const Box b = supplied_box_of_rank(d, p, Stagger(s));
            if (b.lo[a] > 0) cuts.insert(b.lo[a]);
          }
          int extent = 0;  // blocks of the same extent: an even cut
          bool even = true;
          for (int p = 0; p < world->size(); ++p) {
            const Box b = supplied_box_of_rank(Decomposition::make(whole.n, {true, false, false}, world->size(), p, dims), p, Stagger::centre);
            if (extent && b.extent(a) != extent) even = false;
            extent = b.extent(a);
          }
          if (!even) continue;
          for (const int at : cuts)
            EXPECT_EQ(std::size_t(at) % chunk[2 - a], 0u) << kNames[s] << " cut at " << at << " along " << a << " on " << on;
        }
      }
      nc_close(ncid);
    }
    // Every rank reads its block: the values of its block's box, and no more.
    const Checkpoint back = read_checkpoint(path, block);
    for (int s = 0; s < 4; ++s) {
      EXPECT_EQ(back.arrays[std::size_t(s)].values, values_of(block.boxes[std::size_t(s)], s))
          << kNames[s] << " of rank " << world->rank() << " on " << on;
      if (world->size() > 1)
        EXPECT_LT(back.arrays[std::size_t(s)].values.size(), whole.arrays[std::size_t(s)].values.size())
            << "a block, not the whole";
    }
    for (int r = 0; r < 2; ++r)  // a region array: this rank's share of it
      EXPECT_EQ(back.arrays[std::size_t(4 + r)].values,
                values_of(intersect(kRegions[r], (*block.shares)[std::size_t(kRegionStaggers[r] + 1)]), 10 + r))
          << "region array " << r << " of rank " << world->rank() << " on " << on;
    EXPECT_EQ(back.arrays[6].values, whole.arrays[6].values) << "the flat array, whole";
    // The ranks' checksum parts add up to each array's (and a wrong part is found).
    EXPECT_EQ(back.checksums.size(), 6u);
    EXPECT_EQ(checkpoint_checksum_failure(path, back.checksums, *world), "") << on;
    std::vector<CheckpointChecksum> wrong = back.checksums;
    if (world->rank() == world->size() - 1) wrong[1].part ^= 1;
    EXPECT_EQ(checkpoint_checksum_failure(path, wrong, *world), "checkpoint " + path + ": damaged: array 'u' does not match its checksum");
  }
  first_failure(*world, false, "");  // every rank done with the files
  if (world->rank() == 0) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace bouss
