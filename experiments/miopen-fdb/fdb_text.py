"""Reading MIOpen find-db text, shared by fdb_forms and fdb_batch_swings (next to it)."""
import bz2
import math


def open_fdb(path):
    """The file as text lines; `.bz2` files are read compressed."""
    return bz2.open(path, 'rt') if path.endswith('.bz2') else open(path)


def solver_times(text):
    """{solver: time} of an entry list's valid entries (new format: Solver:time,ws,algo; a
    time that does not parse, is not finite or is not positive is left out)."""
    out = {}
    for entry in text.split(';'):
        solver, _, values = entry.partition(':')
        try:
            time = float(values.split(',')[0])
        except ValueError:
            continue
        if time > 0 and math.isfinite(time):
            out[solver] = time
    return out
