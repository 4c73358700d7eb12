"""What lg-link-probe printed, as batches: the events of each, one list of
words an event, closed by done (link-protocol.sh)."""


def batches(path):
    out, cur = [], []
    for line in open(path):
        e = line.split()
        if e == ["done"]:
            out.append(cur)
            cur = []
        else:
            cur.append(e)
    assert cur == [], "events after the last done in %s: %r" % (path, cur)
    return out


def without(stream, pred):
    """stream minus the events pred picks, and minus the batches that held
    only those."""
    kept = [[e for e in b if not pred(e)] for b in stream]
    return [b for b, orig in zip(kept, stream) if b or not orig]
