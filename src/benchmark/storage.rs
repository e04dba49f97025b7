//! The storage options at run time (issue 13): the processes of a node ([`Node`]) and
//! dropping the page cache between phases ([`drop_caches`]).

use std::ffi::CStr;

use crate::agreement::agree;
use crate::error::Result;
use crate::ffi::mpi::{Comm, Op};
use crate::ffi::posix::{self, Fd, OpenMode};
use crate::ffi::storage as kernel;
use crate::output::export::hostname;

/// Where this process sits among the processes of a communicator: which of them share
/// its node (`MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`, MPI-3.1 §6.4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// This process is the first (lowest rank) of its node: it acts for the node.
    pub leader: bool,
    /// Processes of the communicator on the node of its rank 0.
    pub on_node0: u32,
    /// All processes of the communicator are on one node.
    pub one_node: bool,
}

impl Node {
    /// The node of this process in `comm`. Collective over `comm`.
    ///
    /// Errors: an MPI call failed.
    pub fn of(comm: &Comm) -> Result<Node> {
        let node = comm.split_shared()?;
        let local = u64::from(node.size()?);
        let leader = node.rank()? == 0;
        drop(node);
        let me0 = if comm.rank()? == 0 { local } else { 0 };
        let on_node0 = comm.allreduce_u64(me0, Op::Max)?;
        let smallest = comm.allreduce_u64(local, Op::Min)?;
        Ok(Node {
            leader,
            on_node0: on_node0 as u32,
            one_node: smallest == u64::from(comm.size()?),
        })
    }
}

/// `--drop-caches` between the phases of a file, outside every timer (collective): every
/// rank writes back the dirty pages of `files` (`fsync(2)` of the data file it wrote and
/// of the one it reads: only the clean pages of a file can be dropped), the ranks agree,
/// then each node's leader writes `3` to `/proc/sys/vm/drop_caches`. Only the run's own
/// files are written back: `sync(2)` of the whole node waited for every other job's
/// dirty data (more than 2 minutes on this test machine at a load average of 20, the
/// ranks in state D in `sync`).
///
/// Errors: a file could not be opened or written back, or the write to `drop_caches`
/// failed, on some rank (agreed).
pub fn drop_caches(comm: &Comm, node: &Node, files: &[&CStr]) -> Result<()> {
    let written_back = files.iter().try_for_each(|&f| {
        let fd = Fd::open(f, OpenMode::Read)?;
        fd.fsync()
            .map_err(|e| e.context(&format!("--drop-caches: {}", posix::c_text(f))))?;
        fd.close()
    });
    agree(comm, written_back)?;
    let mine = if node.leader {
        kernel::drop_page_cache()
            .map_err(|e| e.context(&format!("--drop-caches on {}", hostname())))
    } else {
        Ok(())
    };
    agree(comm, mine)
}
