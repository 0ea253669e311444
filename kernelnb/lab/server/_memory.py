"""A dashboard kernel's memory: its limit, and what the server reads of it.

Every kernel of :class:`kernelnb.lab.server._kernelpool.BudgetKernelManager` (forked from the fork server
or started as a new process alike) gets a memory limit of ``kernel_memory_mb``, held two ways:

* **Inside the kernel**, Linux's ``RLIMIT_DATA``, set by the server on the kernel's process
  (``prlimit``) as soon as it is launched: the kernel's *data* (every private writable page it has
  mapped: its heap, numpy's arrays, thread stacks) may not grow past the limit. An allocation that
  would is refused at once (numpy raises ``MemoryError: Unable to allocate 3.7 GiB for an array
  with shape ...``), before any of it is touched, and the dashboard's update shows the error in
  the page; the kernel lives on. Child processes inherit the limit, each its own.
* **By the server**, a watchdog: every ``memory_check_interval`` seconds it reads, from
  ``/proc``, the resident memory of each kernel's processes that no file backs (``RssAnon`` and
  ``RssShmem`` of ``/proc/<pid>/status``), the kernel's and its children's together. A kernel whose
  processes hold more than the limit is ended (its reason ``"memory"``): what ``RLIMIT_DATA`` does
  not count, shared memory and several processes, cannot take the machine either.

Why not ``RLIMIT_AS``, the address space: a dashboard kernel reserves far more address space than
it uses (1.1-1.3 GB for 200 MB resident: every thread reserves an 8 MB stack and a 64 MB malloc
arena), so a limit on it refuses a kernel that starts a few threads while leaving room for real
use. ``RLIMIT_DATA`` counts a thread's stack but not its arena's reserve, and the same data for a
forked kernel (whose pages the fork server shares) as for one started as usual (380-470 MB after a
dashboard's first picture, either way), so one number means the same for both. What the
watchdog reads is cheap: one pass over ``/proc`` (a few small files a process) in a worker
thread.

:func:`default_kernel_memory_mb` is ``kernelnb serve``'s default; under JupyterHub it is the
student's memory (:func:`kernelnb.lab.hub.singleuser_config`).
"""
from __future__ import annotations

import os

__all__ = ["KERNEL_MB", "KERNEL_MEMORY_MIN_MB", "KERNEL_MEMORY_FLOOR_MB",
           "default_kernel_memory_mb", "limit_process_memory", "children_map", "process_tree",
           "resident_mb", "tree_resident_mb"]

#: Memory planned per dashboard kernel by the kernel budget, MB (measured 150-250 MB; some
#: headroom): :func:`kernelnb.lab.server._kernelpool.default_max_kernels` and
#: :func:`kernelnb.lab.hub.student_resources` plan with it.
KERNEL_MB = 300

#: The least limit a kernel may be given, MB: a dashboard kernel's data is 330 MB when it is
#: forked and 400-460 MB once its dashboard has drawn (measured with every dashboard).
KERNEL_MEMORY_MIN_MB = 512

#: The least default limit, MB: three times the least limit, room for every dashboard at its
#: heaviest setting (each adds a few tens of MB to a drawn kernel) and for what a student runs in
#: a notebook of the class's server.
KERNEL_MEMORY_FLOOR_MB = 1536


def _total_memory_mb() -> float | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    except (AttributeError, OSError, ValueError):
        return None


def default_kernel_memory_mb(max_kernels: int, memory_mb: float | None = None) -> int:
    """The memory limit of each dashboard kernel that ``kernelnb serve`` sets by default, MB.

    The kernel budget plans :data:`KERNEL_MB` for each of its
    ``max_kernels`` kernels (3/4 of the memory by default); the limit lets two kernels at once
    use all that the plan leaves over (the last quarter), at least
    :data:`KERNEL_MEMORY_FLOOR_MB`, at most half the machine.

    Parameters
    ----------
    max_kernels : int
        The kernel budget (``--max-kernels``); 0 (no budget): a quarter of the memory is left
        over.
    memory_mb : float or None, default=None
        The machine's memory, MB; None: read from the system.

    Returns
    -------
    int
        The limit, MB: 3,138 on 24 GiB with its default budget of 61 kernels, 2,192 on 16 GiB
        (40 kernels), 1,536 on 8 GiB (20 kernels: the floor).

    Examples
    --------
    >>> from kernelnb.lab.server._memory import default_kernel_memory_mb
    >>> default_kernel_memory_mb(max_kernels=4, memory_mb=16384)
    7592
    >>> default_kernel_memory_mb(max_kernels=20, memory_mb=8192)
    1536
    """
    memory_mb = _total_memory_mb() if memory_mb is None else memory_mb
    if not memory_mb:
        return KERNEL_MEMORY_FLOOR_MB
    left = memory_mb / 4 if not max_kernels else memory_mb - max_kernels * KERNEL_MB
    return int(min(memory_mb / 2, max(KERNEL_MEMORY_FLOOR_MB, left / 2)))


def limit_process_memory(pid: int, mb: float) -> None:
    """Hold process ``pid``'s data (``RLIMIT_DATA``, soft and hard) to ``mb`` MB.

    The process cannot raise it again (that needs ``CAP_SYS_RESOURCE``); its children inherit it.
    Raises ``OSError`` where the system refuses (another user's process, no ``prlimit``).
    """
    import resource
    if not hasattr(resource, "prlimit"):
        raise OSError("this system has no prlimit (Linux only)")
    limit = int(mb * 2**20)
    resource.prlimit(pid, resource.RLIMIT_DATA, (limit, limit))


def children_map() -> dict[int, list[int]]:
    """{pid: its child processes' pids}, for every process of this machine (one pass of /proc)."""
    kids: dict[int, list[int]] = {}
    try:
        entries = os.scandir("/proc")
    except OSError:
        return kids
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    stat = f.read()
                ppid = int(stat[stat.rindex(b")") + 2:].split(None, 2)[1])
            except (OSError, ValueError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(entry.name))
    return kids


def process_tree(pid: int, children: dict[int, list[int]]) -> list[int]:
    """``pid`` and all its descendants in ``children`` (:func:`children_map`)."""
    out, todo = [pid], [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in out:
                out.append(child)
                todo.append(child)
    return out


def resident_mb(pid: int) -> float | None:
    """Resident memory of process ``pid`` that no file backs (``RssAnon`` + ``RssShmem``), MB;
    None when the process is gone or unreadable."""
    total, found = 0, False
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith((b"RssAnon:", b"RssShmem:")):
                    total += int(line.split()[1])
                    found = True
    except (OSError, ValueError, IndexError):
        return None
    return total / 1024 if found else None


def tree_resident_mb(pid: int, children: dict[int, list[int]] | None = None) -> float | None:
    """:func:`resident_mb` of ``pid`` and its descendants together, MB (None: ``pid`` is gone)."""
    children = children_map() if children is None else children
    own = resident_mb(pid)
    if own is None:
        return None
    return own + sum(resident_mb(p) or 0.0 for p in process_tree(pid, children)[1:])
