"""How much memory a search may take: a share of what the machine has free now.

The solver's cap of 1 GiB exceeds what a 1 GB Raspberry Pi 4 can give, and the kernel's OOM
killer would end the whole companion before the solver noticed. So each search takes the
smaller of its cap and :data:`SHARE` of ``MemAvailable`` (``/proc/meminfo``: the memory the
kernel can hand out without swapping), read when the search starts. Where there is no
``/proc/meminfo`` (not Linux), the cap stands as given.

>>> memory_cap(1 << 30, meminfo="MemTotal: 944388 kB\\nMemAvailable: 512000 kB\\n") >> 20
250
"""

from __future__ import annotations

import re
from pathlib import Path

MEMINFO = Path("/proc/meminfo")
SHARE = 0.5  # the rest stays for the camera, the page, the journal and the system

_AVAILABLE = re.compile(r"^MemAvailable:\s+(\d+)\s*kB\s*$", re.MULTILINE)


def mem_available(meminfo: str | None = None) -> int | None:
    """Bytes the kernel says are available, from ``meminfo`` text (default: read
    ``/proc/meminfo``); ``None`` when it cannot be read or does not say."""
    if meminfo is None:
        try:
            meminfo = MEMINFO.read_text()
        except OSError:
            return None
    m = _AVAILABLE.search(meminfo)
    return int(m.group(1)) * 1024 if m else None


def memory_cap(limit: int, *, meminfo: str | None = None) -> int:
    """``limit`` bytes, or :data:`SHARE` of the memory available now if that is less."""
    available = mem_available(meminfo)
    if available is None:
        return limit
    return min(limit, int(available * SHARE))
