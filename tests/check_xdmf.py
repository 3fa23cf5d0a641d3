#!/usr/bin/python3
"""Checks an XDMF file that bouss wrote (io/xdmf.cpp) against the NetCDF-4 file it describes.

    check_xdmf.py FILE.xdmf2 [--expect NAME,NAME,...]

Reads the NetCDF-4 file as the HDF5 file it is (python3-h5py), as an XDMF reader would:
every HDF DataItem must name a dataset that exists, with the shape and precision given;
every HyperSlab must lie inside its dataset; each DataItem is then evaluated (HDF, XML,
HyperSlab, and the two Functions bouss writes: "0.5 * ($0 + $1)" and "JOIN($0, $1, $2)")
and must have its Dimensions. The grids must be what docs/output.md promises: one per time
record at the file's times, nodes on the face coordinates xf, yf, zf, each cell field on
the cells with the values of its record, each face field F as F_c (the mean of the two
faces of each cell, unless the file has its own F_c), and u_c, v_c, w_c as the vector
`velocity` when all three are there. --expect gives the exact attribute names of each grid.
Exit status 0 and one line "ok: ..." when all holds, 1 and one line per failure otherwise.
"""
import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np


class Failure(Exception):
    pass


def dims_of(item):
    text = item.get("Dimensions")
    if text is None:
        raise Failure(f"DataItem without Dimensions: {ET.tostring(item)[:120]!r}")
    return tuple(int(v) for v in text.split())


class Evaluator:
    def __init__(self, xdmf_path):
        self.folder = os.path.dirname(os.path.abspath(xdmf_path))
        self.files = {}
        self.datasets = set()  # (file, dataset) pairs named

    def h5(self, name):
        path = os.path.join(self.folder, name)
        if name not in self.files:
            if not os.path.isfile(path):
                raise Failure(f"HDF file {name} (relative to the XDMF's folder) does not exist")
            self.files[name] = h5py.File(path, "r")
        return self.files[name]

    def hdf(self, item):
        text = item.text.strip()
        if ":" not in text:
            raise Failure(f"HDF DataItem content {text!r} is not FILE:/DATASET")
        name, dataset = text.split(":", 1)
        f = self.h5(name)
        if dataset not in f or not isinstance(f[dataset], h5py.Dataset):
            raise Failure(f"{name} has no dataset {dataset}")
        d = f[dataset]
        if d.shape != dims_of(item):
            raise Failure(f"{name}:{dataset} has shape {d.shape}, the XDMF says {dims_of(item)}")
        precision = int(item.get("Precision", "4"))
        if item.get("NumberType", "Float") != "Float" or d.dtype.kind != "f" or d.dtype.itemsize != precision:
            raise Failure(f"{name}:{dataset} is {d.dtype}, the XDMF says "
                          f"{item.get('NumberType', 'Float')} of {precision} bytes")
        self.datasets.add((name, dataset))
        return d

    def evaluate(self, item, want_array=True):
        kind = item.get("ItemType", "Uniform")
        children = [c for c in item if c.tag == "DataItem"]
        if kind == "Uniform":
            fmt = item.get("Format", "XML")
            if fmt == "HDF":
                d = self.hdf(item)
                return d[...] if want_array else d
            if fmt == "XML":
                values = np.array([float(v) for v in item.text.split()])
                if values.size != np.prod(dims_of(item)):
                    raise Failure(f"XML DataItem holds {values.size} values, Dimensions {dims_of(item)}")
                return values.reshape(dims_of(item))
            raise Failure(f"unexpected Format {fmt}")
        if kind == "HyperSlab":
            if len(children) != 2:
                raise Failure("HyperSlab without its two DataItems")
            selection = self.evaluate(children[0]).astype(np.int64)
            data = self.evaluate(children[1], want_array=False)
            rank = len(data.shape)
            if selection.shape != (3, rank):
                raise Failure(f"HyperSlab selection has shape {selection.shape}, its dataset rank {rank}")
            start, stride, count = selection
            if np.any(start < 0) or np.any(stride < 1) or np.any(count < 1):
                raise Failure(f"HyperSlab selection {selection.tolist()} is not valid")
            last = start + (count - 1) * stride
            if np.any(last >= np.array(data.shape)):
                raise Failure(f"HyperSlab start {start.tolist()} stride {stride.tolist()} count {count.tolist()} "
                              f"reaches outside the dataset's shape {data.shape}")
            picked = data[tuple(slice(s, s + (c - 1) * st + 1, st) for s, st, c in zip(start, stride, count))]
            if picked.size != np.prod(dims_of(item)):
                raise Failure(f"HyperSlab selects {picked.size} values, its Dimensions {dims_of(item)} hold "
                              f"{np.prod(dims_of(item))}")
            return np.asarray(picked).reshape(dims_of(item))
        if kind == "Function":
            function = re.sub(r"\s+", "", item.get("Function", ""))
            args = [self.evaluate(c) for c in children]
            if function == "0.5*($0+$1)" and len(args) == 2 and args[0].shape == args[1].shape:
                result = 0.5 * (args[0] + args[1])
            elif function == "JOIN($0,$1,$2)" and len(args) == 3 and all(a.shape == args[0].shape for a in args):
                result = np.stack(args, axis=-1)
            else:
                raise Failure(f"unexpected Function {item.get('Function')!r} of {len(args)} DataItems "
                              f"{[a.shape for a in args]}")
            if result.shape != dims_of(item):
                raise Failure(f"Function gives shape {result.shape}, its Dimensions {dims_of(item)}")
            return result
        raise Failure(f"unexpected ItemType {kind}")


def check(xdmf_path, expect):
    failures = []
    ev = Evaluator(xdmf_path)
    root = ET.parse(xdmf_path).getroot()
    if root.tag != "Xdmf" or root.get("Version") != "2.0":
        raise Failure(f"root is <{root.tag} Version={root.get('Version')}>, expected <Xdmf Version=\"2.0\">")
    collections = root.findall("Domain/Grid")
    if len(collections) != 1 or collections[0].get("CollectionType") != "Temporal":
        raise Failure("the Domain must hold one temporal collection")
    grids = collections[0].findall("Grid")

    # The NetCDF file: the one file the HDF DataItems name.
    names = {item.text.strip().split(":", 1)[0] for item in root.iter("DataItem") if item.get("Format") == "HDF"}
    if len(names) != 1:
        raise Failure(f"the HDF DataItems name {sorted(names)}, expected one file")
    (nc_name,) = names
    if os.path.dirname(nc_name):
        failures.append(f"the NetCDF file is named {nc_name!r}, not by its bare name beside the XDMF file")
    nc = ev.h5(nc_name)
    times = nc["time"][...]
    n = [nc[a].shape[0] for a in ("x", "y", "z")]
    cells = (n[2], n[1], n[0])
    if len(grids) != times.size:
        failures.append(f"{len(grids)} grids, the file has {times.size} time records")

    # Fields of the file: cell-centred, or on one face dimension (staggered axis k in z y x order).
    fields = {}
    for name, d in nc.items():
        if not isinstance(d, h5py.Dataset) or d.ndim != 4 or d.shape[0] != times.size or name == "time":
            continue
        extra = [d.shape[1 + k] - cells[k] for k in range(3)]
        if all(e == 0 for e in extra):
            fields[name] = None
        elif sorted(extra) == [0, 0, 1]:
            fields[name] = extra.index(1)
    on_cells = {}  # attribute name -> (field, face axis or None)
    for name, k in fields.items():
        if k is None:
            on_cells[name] = (name, None)
    for name, k in fields.items():
        if k is not None:
            on_cells.setdefault(name + "_c", (name, k))
    velocity = all(c in on_cells for c in ("u_c", "v_c", "w_c"))
    expected_names = {a for a in on_cells if not (velocity and a in ("u_c", "v_c", "w_c"))}
    if velocity:
        expected_names.add("velocity")
    if expect is not None and set(expect) != expected_names:
        failures.append(f"the file's fields call for attributes {sorted(expected_names)}, --expect says {sorted(expect)}")

    def cell_value(attribute, record):
        name, k = on_cells[attribute]
        values = nc[name][record]
        if k is None:
            return values
        lo = [slice(None)] * 3
        hi = [slice(None)] * 3
        lo[k], hi[k] = slice(0, -1), slice(1, None)
        return 0.5 * (values[tuple(lo)] + values[tuple(hi)])

    for r, grid in enumerate(grids[: times.size]):
        where = f"grid {r}"
        if grid.get("GridType") != "Uniform":
            failures.append(f"{where} is not a Uniform grid")
            continue
        time = grid.find("Time")
        if time is None or float(time.get("Value")) != times[r]:
            failures.append(f"{where}: Time {None if time is None else time.get('Value')}, the file's time {times[r]!r}")
        topology = grid.find("Topology")
        if topology is None or topology.get("TopologyType") != "3DRectMesh":
            failures.append(f"{where}: Topology is not a 3DRectMesh")
            continue
        nodes = dims_of(topology)
        if nodes != (n[2] + 1, n[1] + 1, n[0] + 1):
            failures.append(f"{where}: Topology Dimensions {nodes}, the cells' nodes are {(n[2] + 1, n[1] + 1, n[0] + 1)}")
        geometry = grid.find("Geometry")
        if geometry is None or geometry.get("GeometryType") != "VXVYVZ" or len(geometry.findall("DataItem")) != 3:
            failures.append(f"{where}: Geometry is not VXVYVZ with three DataItems")
            continue
        for a, item in enumerate(geometry.findall("DataItem")):
            coords = ev.evaluate(item)
            faces = nc[("xf", "yf", "zf")[a]][...]
            if coords.shape != (nodes[2 - a],) or not np.array_equal(coords, faces):
                failures.append(f"{where}: coordinate {'xyz'[a]} is not the face coordinate {'xyz'[a]}f")
        seen = set()
        for attribute in grid.findall("Attribute"):
            name = attribute.get("Name")
            seen.add(name)
            items = attribute.findall("DataItem")
            if attribute.get("Center") != "Cell" or len(items) != 1:
                failures.append(f"{where}: attribute {name} is not one DataItem on the cells")
                continue
            value = ev.evaluate(items[0])
            vector = attribute.get("AttributeType") == "Vector"
            if value.size != np.prod(cells) * (3 if vector else 1):
                failures.append(f"{where}: attribute {name} has {value.size} values for {np.prod(cells)} cells")
                continue
            if name == "velocity" and vector and velocity:
                want = np.stack([cell_value(c, r) for c in ("u_c", "v_c", "w_c")], axis=-1)
            elif name in on_cells and not vector:
                want = cell_value(name, r)
            else:
                failures.append(f"{where}: attribute {name} ({attribute.get('AttributeType')}) is not one of the file's fields")
                continue
            if not np.array_equal(value.reshape(want.shape), want):
                failures.append(f"{where}: attribute {name} differs from the file's record {r} "
                                f"(max difference {np.max(np.abs(value.reshape(want.shape) - want)):.3g})")
        if seen != expected_names:
            failures.append(f"{where}: attributes {sorted(seen)}, the file's fields call for {sorted(expected_names)}")

    if failures:
        raise Failure("\n".join(failures))
    return (f"ok: {len(grids)} grids of {n[0]} x {n[1]} x {n[2]} cells, attributes {sorted(expected_names)}, "
            f"{len(ev.datasets)} datasets of {nc_name}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("xdmf")
    parser.add_argument("--expect", help="comma-separated attribute names every grid must have")
    args = parser.parse_args()
    try:
        print(check(args.xdmf, args.expect.split(",") if args.expect else None))
    except (Failure, OSError, ET.ParseError, KeyError, ValueError) as e:
        print(f"check_xdmf: {args.xdmf}: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
