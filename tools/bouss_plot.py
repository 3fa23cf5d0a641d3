#!/usr/bin/python3
"""Pictures from bouss output files (`bouss plot`; docs/plotting.md).

Run through `bouss plot ...`, which execs `/usr/bin/python3 tools/bouss_plot.py ...`, or
directly. Needs python3-xarray, python3-matplotlib and python3-netcdf4 (tools/setup.sh
installs them). Draws with matplotlib's Agg backend: no display is needed.

Coordinates are found the CF way: each dimension of a field has a coordinate variable of the
same name whose `axis` attribute (X, Y, Z) names the axis (or, without one, its name: x and
y carry none, since ParaView takes axis X/Y for longitude/latitude), and a face coordinate carries
`c_grid_axis_shift` (docs/output.md). So a slice of w, on (time, zf, y, x), at z = 0.5 cuts
the nearest z face, and the picture says which.
"""
import argparse
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap

PROG = "bouss plot"
AXES = "xyz"
# Velocities are drawn with a diverging map centred on zero; the temperature with a false
# colour map, as in paper 004's Figure 6.
VELOCITIES = {"u", "v", "w", "u_c", "v_c", "w_c"}
# The five Nusselt estimates (docs/output.md): the plates, the volume, the exact relations.
NUSSELT = ["nusselt_bottom", "nusselt_top", "nusselt_volume", "nusselt_kinetic_dissipation", "nusselt_thermal_dissipation"]
PROFILE_PANELS = [["T_mean"], ["T_rms"], ["u_rms", "v_rms", "w_rms"], ["wT_mean"]]


class PlotError(Exception):
    """Bad input: printed as one line, exit code 2."""


def fail(message, code=2):
    print(f"bouss: error: plot: {message}", file=sys.stderr)
    sys.exit(code)


class Parser(argparse.ArgumentParser):
    """`bouss plot --help` in the layout of the other commands' help (tools/main.cpp's
    HelpFormatter, CLI11's sections): the description, "Usage: bouss plot [OPTIONS] file",
    "Positionals:" and "Options:", each flag with its metavar in a column of 30, its
    description wrapped to 100 columns and ending with "(default X)" where it has a default."""

    WIDTH, COLUMN = 100, 30

    def error(self, message):
        fail(f"{message} (bouss plot --help lists its options)")

    def format_usage(self):
        return f"Usage: {self.prog} [OPTIONS] file\n"

    @classmethod
    def _wrap(cls, text, room):
        lines = []
        for paragraph in text.split("\n"):
            lines += [paragraph] if len(paragraph) <= room else textwrap.wrap(
                paragraph, room, break_long_words=False, break_on_hyphens=False)
        return lines

    @classmethod
    def _row(cls, name, description):
        name = "  " + name
        lines = cls._wrap(description, cls.WIDTH - cls.COLUMN)
        if len(name) >= cls.COLUMN:
            out = [name]
        else:
            out = [name.ljust(cls.COLUMN) + (lines.pop(0) if lines else "")]
        return "\n".join(out + [" " * cls.COLUMN + line for line in lines]).rstrip() + "\n"

    def format_help(self):
        out = "\n".join(self._wrap(self.description, self.WIDTH)) + "\n" + self.format_usage()
        out += "\nPositionals:\n"
        for a in self._actions:
            if not a.option_strings:
                out += self._row(f"{a.dest} TEXT REQUIRED", a.help)
        out += "\nOptions:\n"
        for a in self._actions:
            if not a.option_strings:
                continue
            name = ",".join(sorted(a.option_strings, key=len))  # -o,--output, as CLI11 writes it
            if isinstance(a, argparse._HelpAction):
                out += self._row(name, "Print this help message and exit")
                continue
            if a.nargs != 0:
                name += " " + (a.metavar or {int: "N", float: "X"}.get(a.type, "TEXT"))
            help = a.help[:1].upper() + a.help[1:]
            if a.default not in (None, False, argparse.SUPPRESS):
                help += f" (default {a.default})"
            out += self._row(name, help)
        return out + "\n" + self.epilog + "\n"


def parse_args(argv):
    p = Parser(
        prog=PROG,
        description="Pictures from a bouss output file (NetCDF): a slice of a field (the default), the "
        "diagnostics series (--series), the horizontally averaged profiles (--profiles), a "
        "movie of a slice over time (--movie OUT.mp4), one picture per record (--frames DIR), or a list of what the "
        "file holds (--list); "
        "one of them at a time",
        epilog="""Examples:
  bouss plot out/rb.nc --field T --plane z=0.5 --output T_mid.png     horizontal slice, last record
  bouss plot out/rb.nc --field w --plane y=1 --time 30                vertical slice of w at t = 30
  bouss plot out/rb.nc --series --diagnostics kinetic_energy,nusselt_bottom+nusselt_top
  bouss plot out/rb.nc --profiles --time 50
  bouss plot out/rb.nc --movie T.mp4 --field T --plane y=1           a movie (through ffmpeg)
  bouss plot out/rb.nc --frames frames/ --field T --plane y=1

Times and planes pick the nearest record and the nearest cell (or face, for a field on
faces: w at z = 0.5 is drawn at the nearest zf). Bad input gets one line
"bouss: error: ..." and exit code 2. docs/plotting.md has the details.""",
    )
    p.add_argument("file", metavar="FILE", help="A bouss output file (NetCDF)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--series", action="store_true", help="the diagnostics series against time, one panel per quantity")
    mode.add_argument("--profiles", action="store_true", help="the horizontally averaged profiles against z")
    mode.add_argument("--frames", metavar="DIR", help="one slice per record into DIR/FIELD_00000.png, ...")
    mode.add_argument("--movie", metavar="OUT.mp4",
                      help="the slice over every record as an H.264 movie through ffmpeg (without ffmpeg: the frames "
                      "into OUT_frames/ and one line saying so)")
    mode.add_argument("--list", action="store_true", help="print the fields, records, diagnostics and profiles the file holds")
    p.add_argument("--output", "-o", metavar="PNG",
                   help="the picture to write (default: in the current folder, STEM_FIELD_PLANE_tTIME.png for a "
                   "slice, STEM_series.png, STEM_profiles.png)")
    p.add_argument("--field", "-f", metavar="FIELD", default="T", help="slice, frames, movie: the field to draw")
    p.add_argument("--plane", metavar="AXIS=VALUE",
                   help="slice, frames, movie: the plane, e.g. z=0.5 or y=1 (the nearest cell; default: the middle of y, a "
                   "vertical x-z slice as in paper 004's Figure 6; a plane file's one plane)")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--time", "-t", type=float, metavar="T",
                      help="slice, profiles: the record nearest this time (default: the last record)")
    when.add_argument("--record", type=int, metavar="N", help="slice, profiles: record N (0 the first, -1 the last)")
    p.add_argument("--diagnostics", metavar="A,B+C",
                   help="series: the quantities, one panel each; '+' shares a panel (default: the panels the file's "
                   "diagnostics belong to, those with values: the kinetic energy and the Nusselt numbers for "
                   "convection, the fronts and the energy budget for a lock exchange)")
    p.add_argument("--variables", metavar="A,B+C",
                   help="profiles: the profiles, one panel each; '+' shares a panel "
                   "(default: T_mean, T_rms, u_rms+v_rms+w_rms, wT_mean, those the file has)")
    p.add_argument("--linear", action="store_true",
                   help="series: linear y axes (default: logarithmic for a positive quantity spanning over 3 decades)")
    p.add_argument("--cmap", metavar="NAME", help="slice, frames, movie: a matplotlib colour map (default: RdYlBu_r for T, RdBu_r "
                   "for velocities, viridis otherwise)")
    p.add_argument("--vmin", type=float, metavar="V", help="slice, frames, movie: the colour range's low end (default: for T the reference "
                   "temperature less half the case's temperature range, the plates' or the lock's fluids'; for a "
                   "velocity minus its largest magnitude; else the data's least)")
    p.add_argument("--vmax", type=float, metavar="V", help="slice, frames, movie: the colour range's high end (default: as --vmin, symmetric; "
                   "frames and movies take the data over all records)")
    p.add_argument("--fps", type=float, metavar="N", default=10, help="frames, movie: frames per second of the movie")
    p.add_argument("--dpi", type=int, metavar="N", default=150, help="dots per inch of the picture")
    p.add_argument("--json", action="store_true", help="print what was drawn (files, values' range, plane, time) as JSON")
    args = p.parse_args(argv)

    kind = "series" if args.series else "profiles" if args.profiles else "frames" if args.frames else \
        "movie" if args.movie else "list" if args.list else "slice"
    # Options that do not apply to the chosen picture are refused rather than ignored.
    applies = {
        "field": {"slice", "frames", "movie"}, "plane": {"slice", "frames", "movie"}, "time": {"slice", "profiles"},
        "record": {"slice", "profiles"}, "diagnostics": {"series"}, "variables": {"profiles"},
        "linear": {"series"}, "cmap": {"slice", "frames", "movie"}, "vmin": {"slice", "frames", "movie"},
        "vmax": {"slice", "frames", "movie"}, "output": {"slice", "series", "profiles"}, "fps": {"frames", "movie"},
    }
    defaults = {"field": "T", "linear": False, "fps": 10}
    for name, kinds in applies.items():
        value = getattr(args, name)
        if kind not in kinds and value is not None and value != defaults.get(name):
            flag = "--" + name
            what = "a slice" if kind == "slice" else "--" + kind
            fail(f"{flag} does not apply to {what} (it applies to: {', '.join(sorted(kinds))})")
    if args.dpi <= 0 or args.dpi > 1200:
        fail(f"--dpi expects 1 .. 1200, got {args.dpi}")
    if not (math.isfinite(args.fps) and 0.1 <= args.fps <= 120):
        fail(f"--fps expects 0.1 .. 120, got {args.fps:g}")
    if args.vmin is not None and args.vmax is not None and not args.vmin < args.vmax:
        fail(f"--vmin {args.vmin:g} must be below --vmax {args.vmax:g}")
    args.kind = kind
    return args


# ---------------------------------------------------------------------------------------------
# The file and its CF coordinates


def open_file(path):
    if not os.path.exists(path):
        raise PlotError(f"{path}: no such file")
    if os.path.isdir(path):
        raise PlotError(f"{path}: is a folder, not a NetCDF file")
    try:
        # Simulation time is plain numbers (no "since <date>"); keep every variable as stored.
        return xr.open_dataset(path, engine="netcdf4", decode_times=False, decode_timedelta=False)
    except Exception as e:  # xarray raises many kinds here; the reason goes on the one line
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise PlotError(f"{path}: not a NetCDF file xarray can read ({reason})")


def attr(var, name, default=""):
    return var.attrs.get(name, default)


def record_bounds(ds, rec, record):
    """The interval an averaged stream's record holds the means over (its time coordinate has
    CF bounds), as [start, end]; None for a snapshot."""
    bounds = attr(ds[rec], "bounds", "") if rec in ds.variables else ""
    if bounds and bounds in ds.variables:
        return [float(x) for x in ds[bounds].values[record]]
    return None


def dim_axis(ds, dim):
    """(axis letter or None, whether the dimension is on cell faces) of a dimension, from its
    coordinate variable's CF attributes, else from the name (x, xf, ...)."""
    if dim in ds.variables:
        a = str(attr(ds[dim], "axis", "")).lower()
        if len(a) == 1 and a in AXES:
            return a, "c_grid_axis_shift" in ds[dim].attrs
    if len(dim) == 1 and dim in AXES:
        return dim, False
    if len(dim) == 2 and dim[0] in AXES and dim[1] == "f":
        return dim[0], True
    return None, False


def record_dim(ds):
    if "time" in ds.dims:
        return "time"
    for d in ds.dims:
        if d in ds.variables and str(attr(ds[d], "axis", "")).upper() == "T" and d not in (
                "diagnostic_time", "profile_time"):
            return d
    return None


def fields_of(ds):
    """Names of the snapshot fields: variables on the record dimension and at least two space axes."""
    rec = record_dim(ds)
    out = []
    for name, var in ds.data_vars.items():
        if rec is None or var.dims[:1] != (rec,):
            continue
        if sum(dim_axis(ds, d)[0] is not None for d in var.dims[1:]) >= 2:
            out.append(name)
    return out


def series_of(ds, dim):
    return [n for n, v in ds.data_vars.items() if v.dims[:1] == (dim,) and n != dim]


def case_extent(ds):
    """The domain from the case JSON the file carries, [[x0, x1], [y0, y1], [z0, z1]], or None."""
    try:
        return json.loads(ds.attrs["case_json"])["grid"]["extent"]
    except Exception:
        return None


def coordinate(ds, dim, n):
    if dim in ds.variables and ds[dim].size == n:
        return ds[dim].values.astype(float)
    return [float(i) for i in range(n)]


def axis_extent(ds, axis):
    """(lo, hi) of the domain along an axis: the case's extent, else the face coordinate's
    ends, else the centres' ends widened by half a cell."""
    ext = case_extent(ds)
    if ext is not None:
        try:
            lo, hi = (float(v) for v in ext[AXES.index(axis)])
            return lo, hi
        except Exception:
            pass
    faces = [d for d in ds.dims if dim_axis(ds, d) == (axis, True) and d in ds.variables]
    if faces and ds[faces[0]].size >= 2:
        f = ds[faces[0]].values
        return float(f[0]), float(f[-1])
    centres = [d for d in ds.dims if dim_axis(ds, d) == (axis, False) and d in ds.variables]
    if centres:
        c = ds[centres[0]].values.astype(float)
        h = (c[-1] - c[0]) / (len(c) - 1) if len(c) > 1 else 0.0
        return float(c[0] - h / 2), float(c[-1] + h / 2)
    return None


def plane_axes_of_file(ds):
    """Axes along which the file holds a single cell (a plane file, or a one-cell axis of a 2D run)."""
    return [a for a in AXES for d in ds.dims if dim_axis(ds, d) == (a, False) and ds.sizes[d] == 1]


def plane_cell(ds, axis):
    """(centre, half width) of the one cell a plane file holds along an axis; the width from the
    two faces around it (a stretched axis's cells differ), else from the case's uniform grid
    (grid.n and grid.extent), else None."""
    dim = next(d for d in ds.dims if dim_axis(ds, d) == (axis, False) and ds.sizes[d] == 1)
    centre = coordinate(ds, dim, 1)[0]
    for d in ds.dims:
        if dim_axis(ds, d) == (axis, True) and d in ds.variables and ds.sizes[d] == 2:
            f = ds[d].values.astype(float)
            return centre, abs(f[1] - f[0]) / 2
    try:
        grid = json.loads(ds.attrs["case_json"])["grid"]
        i = AXES.index(axis)
        lo, hi = (float(v) for v in grid["extent"][i])
        return centre, (hi - lo) / int(grid["n"][i]) / 2
    except Exception:
        return centre, None


def edges(ds, dim, axis, face, n):
    """Cell edges for pcolormesh along one dimension: the faces for cell centres (when the file
    has them), else midway between the points, the ends half a spacing out."""
    if not face:
        for d in ds.dims:
            if dim_axis(ds, d) == (axis, True) and d in ds.variables and ds.sizes[d] == n + 1:
                return ds[d].values.astype(float)
    c = coordinate(ds, dim, n)
    if n == 1:
        lo_hi = axis_extent(ds, axis)
        return list(lo_hi) if lo_hi else [c[0] - 0.5, c[0] + 0.5]
    mids = [(c[i] + c[i + 1]) / 2 for i in range(n - 1)]
    return [c[0] - (mids[0] - c[0])] + mids + [c[-1] + (c[-1] - mids[-1])]


def fmt(x):
    return f"{x:.4g}"


# The scales of the nondimensional forms as mathtext (a file's units_scale attribute: "h^3 u_b^2").
SCALE_SYMBOLS = {"H": "H", "U": "U", "h": "h", "u_b": "u_b", "kappa": r"\kappa", "dT": r"\Delta T"}


def scale_tex(scale):
    """'h^3 u_b^2' -> '$h^{3}\\,u_b^{2}$', 'u_b/(dT h)' -> '$u_b/(\\Delta T\\,h)$'."""
    out = []
    for part in re.split(r"([ /()])", scale):
        if part == " ":
            out.append(r"\,")
        elif part in ("/", "(", ")"):
            out.append(part)
        elif part:
            base, _, power = part.partition("^")
            out.append(SCALE_SYMBOLS.get(base, base) + (f"^{{{power}}}" if power else ""))
    return f"${''.join(out)}$" if out else ""


def units_label(var):
    """What a quantity is measured in, for an axis label: ' [m s-1]' in a dimensional file,
    ' / U' or ' / (h^3 u_b^2)' (its units_scale) in a nondimensional one; nothing for a
    dimensionless quantity."""
    u = str(attr(var, "units", ""))
    if u and u != "1":
        return f" [{u}]"
    scale = str(attr(var, "units_scale", ""))
    if not scale:
        return ""
    tex = scale_tex(scale)
    return f" / ({tex})" if (" " in scale or "/" in scale) else f" / {tex}"


def time_text(ds, var, t, decimals=None):
    """'t = 20' with the time's unit: 't = 20 s', 't = 20 h/u_b' (mathtext)."""
    value = fmt(t) if decimals is None else f"{t:.{decimals}f}"
    u = str(attr(var, "units", "")) if var is not None else ""
    if u and u != "1":
        return f"t = {value} {u}"
    scale = str(attr(var, "units_scale", "")) if var is not None else ""
    return f"t = {value} {scale_tex(scale)}" if scale else f"t = {value}"


def case_name(ds, path):
    return str(ds.attrs.get("title") or os.path.splitext(os.path.basename(path))[0])


def stem_of(path):
    return os.path.splitext(os.path.basename(path))[0]


# ---------------------------------------------------------------------------------------------
# Picking a record and a plane


def pick_record(times, args, what):
    """Index of the record nearest --time (or --record N; default the last)."""
    n = len(times)
    if n == 0:
        raise PlotError(f"the file holds no {what} records")
    if args.record is not None:
        if not -n <= args.record < n:
            raise PlotError(f"--record {args.record}: the file holds {n} {what} records (0 .. {n - 1}, or -1 for the last)")
        return args.record % n
    if args.time is None:
        return n - 1
    t0, t1 = float(times[0]), float(times[-1])
    tol = 1e-9 * max(1.0, abs(t0), abs(t1))
    if not (t0 - tol <= args.time <= t1 + tol) or math.isnan(args.time):
        raise PlotError(f"--time {fmt(args.time)}: outside the {what} records (t = {fmt(t0)} .. {fmt(t1)}, {n} records)")
    return min(range(n), key=lambda i: abs(float(times[i]) - args.time))


def parse_plane(text):
    axis, sep, value = (text or "").partition("=")
    axis = axis.strip().lower()
    try:
        v = float(value)
    except ValueError:
        v = float("nan")
    if not sep or axis not in AXES or not math.isfinite(v):
        raise PlotError(f"--plane expects AXIS=VALUE with AXIS x, y or z, got '{text}'")
    return axis, v


class Slice:
    """A field cut along one axis: which dimension, which index, and the two axes left."""

    def __init__(self, ds, path, field, plane_text):
        fields = fields_of(ds)
        if field not in ds.variables or field not in fields:
            has = ", ".join(fields) if fields else "no fields"
            raise PlotError(f"{path} has no field '{field}'; it has {has}")
        self.var = ds[field]
        self.field = field
        self.rec = self.var.dims[0]
        space = [(d,) + dim_axis(ds, d) for d in self.var.dims[1:]]
        if len(space) not in (2, 3) or any(a is None for _, a, _ in space) or len({a for _, a, _ in space}) != len(space):
            raise PlotError(f"field '{field}' has dimensions {self.var.dims}, not (time, z, y, x) or a plane of them")
        file_planes = plane_axes_of_file(ds)
        held = [a for a in AXES if a not in {a for _, a, _ in space}]  # an axis the field dropped
        single = held + [a for a in file_planes if a not in held]
        if len(space) - len([a for _, a, _ in space if a in single]) < 2:
            raise PlotError(f"field '{field}' is a line, not a plane (one cell along {', '.join(single)})")

        if plane_text is not None:
            axis, value = parse_plane(plane_text)
            ext = axis_extent(ds, axis)
            if ext is not None:
                lo, hi = ext
                tol = 1e-9 * max(1.0, abs(lo), abs(hi))
                if not lo - tol <= value <= hi + tol:
                    raise PlotError(f"--plane {axis}={fmt(value)}: outside the domain ({axis} from {fmt(lo)} to {fmt(hi)})")
            if single and axis not in single:
                raise PlotError(f"{path} holds one plane, {single[0]} = const; --plane {axis}=... cuts no other "
                                f"(give --plane {single[0]}=VALUE, or leave it out)")
            if axis in file_planes:
                centre, half = plane_cell(ds, axis)
                if half is not None and abs(value - centre) > half * (1 + 1e-9):
                    raise PlotError(f"--plane {axis}={fmt(value)}: {path} holds only the plane {axis} = {fmt(centre)} "
                                    f"(its cell spans {fmt(centre - half)} .. {fmt(centre + half)}); leave --plane out")
        elif single:
            axis, value = single[0], None
        else:
            ext = axis_extent(ds, "y")
            axis, value = "y", ((ext[0] + ext[1]) / 2 if ext else None)
        self.axis, self.requested = axis, value

        cut = [s for s in space if s[1] == axis]
        if cut:
            self.dim, _, self.face = cut[0]
            coords = coordinate(ds, self.dim, ds.sizes[self.dim])
            if value is None:
                self.index = 0
            else:
                self.index = min(range(len(coords)), key=lambda i: abs(coords[i] - value))
            self.value = float(coords[self.index])
            self.has_coordinate = self.dim in ds.variables
        else:  # the field holds no dimension along the cut axis: it is the plane
            self.dim, self.face, self.index, self.value, self.has_coordinate = None, False, None, value, False
        rest = sorted([s for s in space if s[1] != axis], key=lambda s: AXES.index(s[1]))
        (self.hdim, self.haxis, self.hface), (self.vdim, self.vaxis, self.vface) = rest
        self.nh, self.nv = ds.sizes[self.hdim], ds.sizes[self.vdim]
        self.hedges = edges(ds, self.hdim, self.haxis, self.hface, self.nh)
        self.vedges = edges(ds, self.vdim, self.vaxis, self.vface, self.nv)
        self.hlim = axis_extent(ds, self.haxis) or (self.hedges[0], self.hedges[-1])
        self.vlim = axis_extent(ds, self.vaxis) or (self.vedges[0], self.vedges[-1])
        self.ds = ds

    def values(self, record=None):
        """The plane as a (vertical, horizontal) array, of one record or (with None) of all."""
        da = self.var
        if self.dim is not None:
            da = da.isel({self.dim: self.index})
        if record is not None:
            da = da.isel({self.rec: record})
        order = ([] if record is not None else [self.rec]) + [self.vdim, self.hdim]
        return da.transpose(*order).values

    def plane_label(self):
        """'z = 0.4792', or 'zf = 0.5 (z face)' for a field on faces."""
        if self.dim is None or not self.has_coordinate:
            if self.value is None:
                return f"the file's {self.axis} plane"
            return f"{self.axis} = {fmt(self.value)}"
        where = f" ({self.axis} face)" if self.face else ""
        return f"{self.dim} = {fmt(self.value)}{where}"

    def plane_of_2d_run(self):
        """Whether the cut axis is the one cell of a 2D run (the case's grid holds one cell
        along it): a plane that says nothing, left out of the title."""
        try:
            return int(json.loads(self.ds.attrs["case_json"])["grid"]["n"][AXES.index(self.axis)]) == 1
        except Exception:
            return False

    def file_tag(self):
        if self.value is None:
            return f"{self.axis}plane"
        return f"{self.axis}{self.value:.4g}"

    def axis_label(self, dim, axis):
        """'x [m]', 'x / H', or 'z / H (faces)' along the faces a staggered field lives on."""
        if dim not in self.ds.variables:
            return f"{axis} (index)"
        faces = " (faces)" if dim_axis(self.ds, dim)[1] else ""
        return f"{axis}{units_label(self.ds[dim])}{faces}"


def temperature_centre(ds, field):
    """(centre, half width or None) of T's colours: the file's reference temperature (the mean
    of the lock's two fluids or of fixed plates: docs/case_file.md), and half the spread of its
    temperature_range (the plates or the fluids, which bound T in the continuum). None for a
    field that is not the temperature."""
    if field != "T":
        return None
    rng = ds.attrs.get("temperature_range")
    ref = ds.attrs.get("reference_temperature")
    try:
        lo, hi = (float(v) for v in rng)
    except Exception:
        lo = hi = None
    if ref is None and lo is None:
        return None
    centre = float(ref) if ref is not None else 0.5 * (lo + hi)
    half = max(hi - centre, centre - lo) if lo is not None and hi > lo else None
    return centre, half


def colour_range(s, ds, data, args):
    """(vmin, vmax): the flags, else for T symmetric about the reference temperature over the
    range the case bounds it to (or the data's), for a velocity symmetric about 0, else the
    data's range."""
    finite = data[np.isfinite(data)]
    lo = float(finite.min()) if finite.size else 0.0
    hi = float(finite.max()) if finite.size else 0.0
    centre = temperature_centre(ds, s.field)
    if s.field in VELOCITIES:
        m = max(abs(lo), abs(hi))
        lo, hi = -m, m
    elif centre is not None:
        c, half = centre
        half = half if half is not None else max(abs(lo - c), abs(hi - c))
        lo, hi = c - half, c + half
    vmin = args.vmin if args.vmin is not None else lo
    vmax = args.vmax if args.vmax is not None else hi
    if not vmin < vmax:  # a uniform field (w at rest): a small range around its value
        pad = max(abs(vmin), 1.0) * 1e-6 if vmin == vmax else 0.0
        vmin, vmax = (vmin - pad, vmax + pad) if pad else (min(vmin, vmax), max(vmin, vmax))
    return vmin, vmax


def default_cmap(field):
    if field in VELOCITIES:
        return "RdBu_r"
    if field == "T":
        return "RdYlBu_r"
    return "viridis"


# The layout of a slice, in inches: the plot's width (wide domains get a wider one), the
# margins around it, and the colour bar beside it, as tall as the plot.
PLOT_WIDTH, WIDE_PLOT_WIDTH, TALL_PLOT_HEIGHT = 6.0, 9.0, 5.5
LEFT, BOTTOM, TOP, BAR_GAP, BAR_WIDTH, BAR_LABEL = 0.95, 0.7, 0.5, 0.15, 0.18, 0.95
FLATTEST = 1.0 / 8  # plots flatter than this are drawn with their vertical axis exaggerated


def slice_geometry(s):
    """(plot width, plot height, vertical exaggeration) in inches: the domain to scale, unless
    it is flatter than 1:8, which is drawn at 1:8 (a lock exchange's long channel) with its
    vertical exaggeration said on the axis."""
    width = max(s.hlim[1] - s.hlim[0], 1e-30)
    height = max(s.vlim[1] - s.vlim[0], 1e-30)
    ratio = height / width
    if ratio > TALL_PLOT_HEIGHT / PLOT_WIDTH:
        h = TALL_PLOT_HEIGHT
        return max(h / ratio, 1.5), h, 1.0
    w = PLOT_WIDTH if ratio >= 0.25 else WIDE_PLOT_WIDTH
    exaggeration = 1.0
    if ratio < FLATTEST:
        exaggeration = FLATTEST / ratio
        ratio = FLATTEST
    return w, w * ratio, exaggeration


class SliceFigure:
    """A slice's picture: the plot to scale, a colour bar as tall as the plot, labels with
    units, a one-line title. Made once and redrawn per record for frames and movies."""

    def __init__(self, s, ds, path, args, data, vmin, vmax, every=None):
        self.s, self.ds, self.path = s, ds, path
        plot_w, plot_h, self.exaggeration = slice_geometry(s)
        w_in = LEFT + plot_w + BAR_GAP + BAR_WIDTH + BAR_LABEL
        h_in = BOTTOM + plot_h + TOP
        # Whole pixels, even in both directions (libx264 with yuv420p needs it).
        w_px, h_px = 2 * round(w_in * args.dpi / 2), 2 * round(h_in * args.dpi / 2)
        w_in, h_in = w_px / args.dpi, h_px / args.dpi
        self.fig = plt.figure(figsize=(w_in, h_in), dpi=args.dpi)
        box = [LEFT / w_in, BOTTOM / h_in, plot_w / w_in, plot_h / h_in]
        self.ax = self.fig.add_axes(box)
        self.bar_ax = self.fig.add_axes([(LEFT + plot_w + BAR_GAP) / w_in, box[1], BAR_WIDTH / w_in, box[3]])
        ax = self.ax
        self.xlabel = s.axis_label(s.hdim, s.haxis)
        self.ylabel = s.axis_label(s.vdim, s.vaxis)
        if self.exaggeration > 1.0:
            self.ylabel += f" (vertical scale x{self.exaggeration:.3g})"
        ax.set_xlabel(self.xlabel, fontsize=11)
        ax.set_ylabel(self.ylabel, fontsize=11)
        ax.set_xlim(*s.hlim)
        ax.set_ylim(*s.vlim)
        ax.tick_params(labelsize=9)
        self.mesh = ax.pcolormesh(s.hedges, s.vedges, data, cmap=args.cmap or default_cmap(s.field), vmin=vmin,
                                  vmax=vmax, shading="flat")
        # The colour bar's ends point on where values (of any record drawn) lie beyond it.
        span = data if every is None else every
        finite = span[np.isfinite(span)]
        under = finite.size and float(finite.min()) < vmin
        over = finite.size and float(finite.max()) > vmax
        extend = "both" if under and over else "min" if under else "max" if over else "neither"
        self.bar = self.fig.colorbar(self.mesh, cax=self.bar_ax, extend=extend)
        self.bar_label = f"{s.field}{units_label(s.var)}"
        self.bar.set_label(self.bar_label, fontsize=11)
        self.bar.ax.tick_params(labelsize=9)
        self.title = ax.set_title("", fontsize=12, loc="left")

    def show(self, data, title):
        self.mesh.set_array(np.asarray(data).ravel())
        self.title.set_text(title)

    def boxes(self):
        """The plot's and the colour bar's boxes in pixels (x0, y0, x1, y1), after drawing."""
        self.fig.canvas.draw()
        out = {}
        w, h = self.fig.canvas.get_width_height()
        # The colour bar as drawn: its outline, the end triangles included.
        for name, b in (("axes_box", self.ax.get_window_extent()),
                        ("colorbar_box", self.bar.outline.get_window_extent())):
            out[name] = [round(float(v), 2) for v in (b.x0, b.y0, b.x1, b.y1)]
        out["title_box"] = [round(float(v), 2) for v in self.title.get_window_extent().extents]
        out["figure_size"] = [int(round(v)) for v in self.fig.canvas.get_width_height()]
        return out

    def report(self):
        return {"xlabel": self.xlabel, "ylabel": self.ylabel, "colorbar_label": self.bar_label,
                "vertical_exaggeration": self.exaggeration,
                "edges": {"horizontal": [float(v) for v in self.s.hedges], "vertical": [float(v) for v in self.s.vedges]}}


def slice_title(s, ds, path, times, record, decimals=None):
    """'case: T at z = 0.5, t = 60', short: no plane where the cut axis is one cell of a 2D run,
    no record numbers (the JSON has them)."""
    t = float(times[record]) if len(times) else float("nan")
    where = "" if s.plane_of_2d_run() else f" at {s.plane_label()}"
    tvar = ds[s.rec] if s.rec in ds.variables else None
    b = record_bounds(ds, s.rec, record)
    when = f"mean over {time_text(ds, tvar, b[0], decimals)[4:]} .. {time_text(ds, tvar, b[1], decimals)[4:]}" \
        if b else time_text(ds, tvar, t, decimals)
    return f"{case_name(ds, path)}: {s.field}{where}, {when}"


def slice_report(s, kind, path, vmin, vmax, data):
    finite = data[np.isfinite(data)]
    centre = temperature_centre(s.ds, s.field)
    return {
        "kind": kind, "file": path, "field": s.field,
        "plane": {"axis": s.axis, "dim": s.dim, "requested": s.requested, "value": s.value, "index": s.index,
                  "face": bool(s.face), "in_title": not s.plane_of_2d_run()},
        "axes": [s.hdim, s.vdim], "shape": [int(s.nv), int(s.nh)],
        "min": float(finite.min()) if finite.size else None, "max": float(finite.max()) if finite.size else None,
        "vmin": vmin, "vmax": vmax, "centre": centre[0] if centre else None,
    }


def draw_slice(ds, path, args):
    s = Slice(ds, path, args.field, args.plane)
    times = ds[s.rec].values if s.rec in ds.variables else list(range(ds.sizes[s.rec]))
    record = pick_record(times, args, "snapshot")
    data = s.values(record)
    vmin, vmax = colour_range(s, ds, data, args)
    f = SliceFigure(s, ds, path, args, data, vmin, vmax)
    title = slice_title(s, ds, path, times, record)
    f.show(data, title)
    boxes = f.boxes()
    t = float(times[record])
    out = args.output or f"{stem_of(path)}_{s.field}_{s.file_tag()}_t{t:.4g}.png"
    save(f.fig, out)
    r = slice_report(s, "slice", path, vmin, vmax, data)
    r.update({"output": out, "record": int(record), "time": t, "time_bounds": record_bounds(ds, s.rec, record),
              "title": title, **f.report(), **boxes})
    return r


def stamp_decimals(times):
    """One count of decimals for every record's time stamp (a steady stamp): the fewest that
    write every time exactly (0.5, 1, 1.5 -> 1), else one more than tells the closest two
    apart (the times of a step-count interval)."""
    t = [float(x) for x in times]
    for d in range(0, 4):
        if all(abs(round(x, d) - x) <= 1e-9 * max(1.0, abs(x)) for x in t):
            return d
    gaps = [b - a for a, b in zip(t, t[1:]) if b > a]
    if not gaps:
        return 3
    return int(min(6, max(0, math.ceil(-math.log10(min(gaps)))) + 1))


def render_frames(ds, path, args, sink):
    """Draws the slice of every snapshot record with one colour range for all (no flicker)
    and the time stamped in the title; sink(record, figure) takes each frame."""
    s = Slice(ds, path, args.field, args.plane)
    times = ds[s.rec].values if s.rec in ds.variables else list(range(ds.sizes[s.rec]))
    if len(times) == 0:
        raise PlotError("the file holds no snapshot records")
    all_data = s.values(None)
    vmin, vmax = colour_range(s, ds, all_data, args)
    f = SliceFigure(s, ds, path, args, all_data[0], vmin, vmax, every=all_data)
    decimals = stamp_decimals(times)
    stamps = []
    for record in range(len(times)):
        title = slice_title(s, ds, path, times, record, decimals)
        f.show(all_data[record], title)
        stamps.append(title)
        sink(record, f.fig)
    size = [int(round(v)) for v in f.fig.canvas.get_width_height()]
    plt.close(f.fig)
    r = slice_report(s, "frames", path, vmin, vmax, all_data)
    r.update({"count": len(times), "times": [float(t) for t in times], "stamps": stamps, "frame_size": size})
    return r, s


def write_frames(ds, path, args, folder):
    """The frames as DIR/FIELD_00000.png, ... (the folder made when missing)."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise PlotError(f"{folder}: cannot make the folder ({e.strerror})")
    files = []
    pattern = f"{args.field}_%05d.png"

    def sink(record, fig):
        out = os.path.join(folder, pattern % record)
        fig.savefig(out)
        files.append(out)

    r, s = render_frames(ds, path, args, sink)
    stale = os.path.join(folder, pattern % len(files))
    if os.path.exists(stale):
        print(f"bouss plot: note: {stale} and maybe more are older frames; ffmpeg would take them too",
              file=sys.stderr)
    r.update({"dir": folder, "pattern": os.path.join(folder, pattern), "files": files})
    return r


def ffmpeg_line(pattern, fps, movie):
    return f"ffmpeg -framerate {fps:g} -i {pattern} -c:v libx264 -pix_fmt yuv420p {movie}"


def draw_frames(ds, path, args):
    r = write_frames(ds, path, args, args.frames)
    r["ffmpeg"] = ffmpeg_line(r["pattern"], args.fps, f"{args.field}.mp4")
    return r


def find_ffmpeg():
    """ffmpeg's path: $BOUSS_FFMPEG where set (empty: none), else the one on PATH; None without."""
    if "BOUSS_FFMPEG" in os.environ:
        given = os.environ["BOUSS_FFMPEG"]
        return given if given and os.access(given, os.X_OK) else None
    return shutil.which("ffmpeg")


def draw_movie(ds, path, args):
    """The slice over every record as an H.264 MP4 through ffmpeg, written under a temporary
    name and renamed when complete; without ffmpeg, the frames beside it and one line."""
    movie = args.movie
    stem, ext = os.path.splitext(movie)
    if ext.lower() != ".mp4":
        raise PlotError(f"--movie {movie}: expects a file name ending in .mp4")
    if os.path.isdir(movie):
        raise PlotError(f"--movie {movie}: is a folder")
    folder = os.path.dirname(movie) or "."
    if not os.path.isdir(folder):
        raise PlotError(f"--movie {movie}: the folder {folder} does not exist")
    ffmpeg = find_ffmpeg()
    if ffmpeg is None:
        frames = stem + "_frames"
        r = write_frames(ds, path, args, frames)
        line = ffmpeg_line(r["pattern"], args.fps, movie)
        print(f"bouss plot: ffmpeg not found (tools/setup.sh installs it): wrote {r['count']} frames to {frames}/ "
              f"instead; the movie from them: {line}", file=sys.stderr)
        r.update({"kind": "movie", "movie": None, "fps": args.fps, "ffmpeg": line})
        return r
    partial = os.path.join(folder, f".{os.path.basename(stem)}.{os.getpid()}.partial.mp4")
    state = {"proc": None}
    # A kill (SIGTERM) unwinds through the clean-up below, as Ctrl-C does: no partial file stays.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))

    def sink(record, fig):
        fig.canvas.draw()
        w, h = fig.canvas.get_width_height()
        if state["proc"] is None:
            state["proc"] = subprocess.Popen(
                [ffmpeg, "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgba",
                 "-s", f"{w}x{h}", "-framerate", f"{args.fps:g}", "-i", "-", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                 "-movflags", "+faststart", partial],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        state["proc"].stdin.write(bytes(fig.canvas.buffer_rgba()))

    try:
        try:
            r, _ = render_frames(ds, path, args, sink)
        finally:
            proc = state["proc"]
            err = b""
            if proc is not None:
                try:
                    proc.stdin.close()
                except OSError:
                    pass
                err = proc.stderr.read()
                proc.wait()
        if proc is None or proc.returncode != 0:
            lines = err.decode(errors="replace").strip().splitlines()
            raise PlotError(f"--movie {movie}: ffmpeg failed ({lines[-1] if lines else 'exit code %s' % proc.returncode})")
        os.replace(partial, movie)
    except BrokenPipeError:
        raise PlotError(f"--movie {movie}: ffmpeg stopped reading the frames")
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    r.update({"kind": "movie", "movie": movie, "fps": args.fps, "ffmpeg_path": ffmpeg})
    return r


# ---------------------------------------------------------------------------------------------
# Series and profiles: panels of named variables on one record dimension


def panels_from(text, available, default_groups, flag, path, what):
    if text is None:
        groups = [[n for n in g if n in available] for g in default_groups]
        groups = [g for g in groups if g]
        if not groups:
            groups = [[n] for n in available]
        return groups
    groups = []
    for panel in text.split(","):
        names = [n.strip() for n in panel.split("+") if n.strip()]
        if not names:
            raise PlotError(f"{flag} '{text}': an empty name")
        for n in names:
            if n not in available:
                has = ", ".join(available) if available else "none"
                raise PlotError(f"{path} has no {what} '{n}'; it has {has}")
        groups.append(names)
    return groups


def default_series_panels(ds, available):
    """The default panels of --series: the diagnostics grouped by their plot_panel attribute
    (the physics that owns each picks it: the Nusselt estimates, the lock exchange's fronts and
    energy budget), in the file's order, leaving out those without a finite value (the
    dissipation estimates between side walls that exchange heat). A file without the
    attribute: the kinetic energy and the Nusselt numbers (else the maximum velocity)."""
    def has_values(n):
        return np.isfinite(ds[n].values.astype(float)).any()

    panels = {}
    for n in available:
        name = str(attr(ds[n], "plot_panel", ""))
        if name and has_values(n):
            panels.setdefault(name, []).append(n)
    if panels:
        return list(panels.values()), list(panels.keys())
    nusselt = [n for n in NUSSELT if n in available and has_values(n)]
    groups = [[n for n in g if n in available] for g in ([["kinetic_energy"], nusselt] if nusselt else
                                                          [["kinetic_energy"], ["max_velocity"]])]
    groups = [g for g in groups if g] or [[n] for n in available]
    return groups, [None] * len(groups)


def short_labels(names):
    """Legend labels: the names less their shared prefix, '_' as spaces (nusselt_bottom,
    nusselt_top -> bottom, top)."""
    prefix = common_name(names) if len(names) > 1 else ""
    cut = len(prefix) + 1 if prefix and prefix not in names else 0
    return [(n[cut:] or n).replace("_", " ") for n in names]


def outside_legend(ax, labels=None):
    """A legend beside the panel, right of it, where it hides no curve."""
    return ax.legend(labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=9,
                     frameon=False) if labels else ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0),
                                                              borderaxespad=0.0, fontsize=9, frameon=False)


def legend_report(fig, axes):
    """Each legend's box and its panel's, in pixels, after drawing: the tests check that no
    legend lies over a panel."""
    fig.canvas.draw()
    out = []
    for ax in axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        out.append({"legend_box": [round(float(v), 2) for v in leg.get_window_extent().extents],
                    "panels": [[round(float(v), 2) for v in a.get_window_extent().extents] for a in axes]})
    return out


def draw_series(ds, path, args):
    dim = "diagnostic_time"
    if dim not in ds.dims:
        raise PlotError(f"{path} has no diagnostics series (no {dim} dimension)")
    available = series_of(ds, dim)
    if args.diagnostics is None:
        groups, names = default_series_panels(ds, available)
    else:
        groups = panels_from(args.diagnostics, available, [], "--diagnostics", path, "diagnostic")
        names = [None] * len(groups)
    t = ds[dim].values if dim in ds.variables else np.arange(ds.sizes[dim])
    if len(t) == 0:
        raise PlotError(f"{path} holds no diagnostics records")
    n = len(groups)
    fig, axes = plt.subplots(n, 1, sharex=True, figsize=(8.0, 0.9 + 2.1 * n), dpi=args.dpi, layout="constrained",
                             squeeze=False)
    report, labels = [], []
    for ax, group, panel in zip(axes[:, 0], groups, names):
        legend = short_labels(group) if len(group) > 1 else None
        for i, name in enumerate(group):
            y = ds[name].values.astype(float)
            ax.plot(t, y, label=legend[i] if legend else None, lw=1.4)
            finite = y[np.isfinite(y)]
            report.append({"name": name, "count": int(finite.size),
                           "min": float(finite.min()) if finite.size else None,
                           "max": float(finite.max()) if finite.size else None})
        # Growth from a small perturbation is exponential: a log axis shows it as a line.
        values = np.concatenate([ds[nm].values.astype(float) for nm in group])
        values = values[np.isfinite(values)]
        positive = values[values > 0]
        if not args.linear and positive.size and values.min() >= 0 and positive.max() / positive.min() > 1e3:
            ax.set_yscale("log")
        units = {units_label(ds[nm]) for nm in group}
        unit = units.pop() if len(units) == 1 else ""
        what = panel or (group[0] if len(group) == 1 else common_name(group).replace("_", " "))
        ylabel = what + unit
        ax.set_ylabel(ylabel, fontsize=10)
        if not panel and len(group) == 1:
            ax.set_title(attr(ds[group[0]], "long_name", group[0]), fontsize=10, loc="left")
        if legend:
            outside_legend(ax)
        ax.grid(True, alpha=0.3)
        ax.tick_params(labelsize=9)
        labels.append(ylabel)
    tvar = ds[dim] if dim in ds.variables else None
    xlabel = f"t{units_label(tvar)}" if tvar is not None else "t"
    axes[-1, 0].set_xlabel(xlabel, fontsize=10)
    fig.suptitle(f"{case_name(ds, path)}: diagnostics", fontsize=12)
    legends = legend_report(fig, list(axes[:, 0]))
    out = args.output or f"{stem_of(path)}_series.png"
    save(fig, out)
    return {"kind": "series", "file": path, "output": out, "records": int(len(t)),
            "panels": groups, "panel_names": names, "ylabels": labels, "xlabel": xlabel, "legends": legends,
            "variables": report}


def common_name(names):
    """'nusselt' for nusselt_bottom, nusselt_top: the shared prefix, else the first name."""
    parts = [n.split("_") for n in names]
    prefix = []
    for words in zip(*parts):
        if len(set(words)) != 1:
            break
        prefix.append(words[0])
    return "_".join(prefix) or names[0]


def draw_profiles(ds, path, args):
    dim = "profile_time"
    if dim not in ds.dims:
        raise PlotError(f"{path} has no profiles (no {dim} dimension)")
    available = series_of(ds, dim)
    available = [n for n in available if ds[n].ndim == 2]
    groups = panels_from(args.variables, available, PROFILE_PANELS, "--variables", path, "profile")
    times = ds[dim].values if dim in ds.variables else np.arange(ds.sizes[dim])
    record = pick_record(times, args, "profile")
    n = len(groups)
    # Room right of each panel for its legend where it has one.
    widths = [3.4 if len(g) > 1 else 2.6 for g in groups]
    fig, axes = plt.subplots(1, n, sharey=True, figsize=(0.9 + sum(widths), 5.2), dpi=args.dpi, layout="constrained",
                             squeeze=False, gridspec_kw={"width_ratios": widths})
    report, xlabels = [], []
    zlabel = None
    zlims = []
    for ax, group in zip(axes[0], groups):
        legend = short_labels(group) if len(group) > 1 else None
        for i, name in enumerate(group):
            var = ds[name]
            zdim = var.dims[1]
            z = coordinate(ds, zdim, ds.sizes[zdim])
            values = var.isel({dim: record}).values.astype(float)
            ax.plot(values, z, marker=".", ms=3, lw=1.4, label=legend[i] if legend else None)
            finite = values[np.isfinite(values)]
            report.append({"name": name, "zdim": zdim, "count": int(finite.size),
                           "min": float(finite.min()) if finite.size else None,
                           "max": float(finite.max()) if finite.size else None})
            zlabel = zlabel or (f"z{units_label(ds[zdim])}" if zdim in ds.variables else "z (index)")
            ext = axis_extent(ds, "z")
            zlims.append(ext if ext else (min(z), max(z)))
        first = ds[group[0]]
        units = {units_label(ds[nm]) for nm in group}
        unit = units.pop() if len(units) == 1 else ""
        if len(group) == 1:
            xlabel = f"{group[0]}{unit}"
            ax.set_title(textwrap.fill(attr(first, "long_name", group[0]), 34), fontsize=9)
        else:
            xlabel = ", ".join(group) + unit
            outside_legend(ax)
        ax.set_xlabel(xlabel, fontsize=10)
        xlabels.append(xlabel)
        ax.grid(True, alpha=0.3)
        ax.tick_params(labelsize=9)
    axes[0, 0].set_ylabel(zlabel or "z", fontsize=10)
    if zlims:
        axes[0, 0].set_ylim(min(l for l, _ in zlims), max(h for _, h in zlims))
    t = float(times[record])
    tvar = ds[dim] if dim in ds.variables else None
    b = record_bounds(ds, dim, record)
    when = f"mean over t = {fmt(b[0])} .. {fmt(b[1])}" if b else time_text(ds, tvar, t)
    fig.suptitle(f"{case_name(ds, path)}: profiles, {when}", fontsize=12)
    legends = legend_report(fig, list(axes[0]))
    out = args.output or f"{stem_of(path)}_profiles.png"
    save(fig, out)
    return {"kind": "profiles", "file": path, "output": out, "record": int(record), "time": t,
            "time_bounds": b, "panels": groups, "xlabels": xlabels, "zlabel": zlabel, "legends": legends,
            "variables": report}


# ---------------------------------------------------------------------------------------------
# What the file holds


def describe(ds, path):
    rec = record_dim(ds)
    out = {"kind": "list", "file": path, "title": case_name(ds, path),
           "units_system": str(ds.attrs.get("units_system", "")), "fields": {}}
    times = ds[rec].values if rec in ds.variables else []
    out["records"] = int(ds.sizes[rec]) if rec else 0
    out["time"] = [float(times[0]), float(times[-1])] if len(times) else None
    for name in fields_of(ds):
        var = ds[name]
        dims = []
        for d in var.dims[1:]:
            a, face = dim_axis(ds, d)
            dims.append({"dim": d, "axis": a, "face": face, "size": int(ds.sizes[d]),
                         "units": str(attr(ds[d], "units", "")) if d in ds.variables else None,
                         "c_grid_axis_shift": float(ds[d].attrs["c_grid_axis_shift"]) if d in ds.variables and
                         "c_grid_axis_shift" in ds[d].attrs else None})
        out["fields"][name] = {"long_name": str(attr(var, "long_name", "")), "units": str(attr(var, "units", "")),
                               "grid_location": str(attr(var, "grid_location", "")), "dims": dims}
    for key, dim in (("diagnostics", "diagnostic_time"), ("profiles", "profile_time")):
        out[key] = series_of(ds, dim) if dim in ds.dims else []
        out[key + "_records"] = int(ds.sizes[dim]) if dim in ds.dims else 0
    out["plane_axes"] = plane_axes_of_file(ds)
    return out


def print_list(d):
    print(f"{d['file']}: {d['title']}, {d['units_system'] or 'units not given'}")
    if d["time"]:
        print(f"  {d['records']} snapshot records, t = {fmt(d['time'][0])} .. {fmt(d['time'][1])}")
    else:
        print("  no snapshot records")
    if d["plane_axes"]:
        print(f"  one cell along {', '.join(d['plane_axes'])}: a plane")
    for name, f in d["fields"].items():
        dims = ", ".join(x["dim"] for x in f["dims"])
        print(f"  {name:8s} ({dims})  {f['long_name']}, {f['grid_location'] or 'location not given'}")
    for key in ("diagnostics", "profiles"):
        if d[key]:
            print(f"  {key} ({d[key + '_records']} records): {', '.join(d[key])}")


def save(fig, out):
    folder = os.path.dirname(out)
    try:
        if folder:
            os.makedirs(folder, exist_ok=True)
        fig.savefig(out)
    except OSError as e:
        raise PlotError(f"--output {out}: cannot write it ({e.strerror or e})")
    finally:
        plt.close(fig)


def load_libraries():
    """matplotlib (Agg), numpy and xarray, imported after the flags so that --help needs none."""
    global matplotlib, plt, np, xr
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np
        import xarray as xr
    except ImportError as e:
        fail(f"{sys.executable} lacks {e.name or e} (tools/setup.sh installs python3-xarray, python3-matplotlib and "
             "python3-netcdf4)", code=1)


def main(argv):
    args = parse_args(argv)
    load_libraries()
    if args.cmap is not None and args.cmap not in matplotlib.colormaps:
        fail(f"--cmap {args.cmap}: not a matplotlib colour map (viridis, RdBu_r, RdYlBu_r, inferno, ...)")
    try:
        ds = open_file(args.file)
        with ds:
            if args.kind == "list":
                d = describe(ds, args.file)
                print(json.dumps(d) if args.json else "", end="\n" if args.json else "")
                if not args.json:
                    print_list(d)
                return 0
            draw = {"slice": draw_slice, "frames": draw_frames, "movie": draw_movie, "series": draw_series,
                    "profiles": draw_profiles}
            result = draw[args.kind](ds, args.file, args)
    except PlotError as e:
        fail(str(e))
    if args.json:
        print(json.dumps(result))
    elif args.kind == "frames":
        print(f"wrote {result['count']} frames, {result['pattern']}; an animation: {result['ffmpeg']}")
    elif args.kind == "movie":
        if result["movie"]:
            print(f"wrote {result['movie']} ({result['count']} frames at {result['fps']:g} per second)")
    else:
        print(f"wrote {result['output']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
