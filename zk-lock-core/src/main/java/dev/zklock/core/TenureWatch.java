package dev.zklock.core;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockLossReason;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.Nodes.LockNode;

/**
 * What a {@link LocalCohort} learns of the other processes: one listing of the
 * key's queue with a one-shot children watch, asked for once a local waiter queues
 * behind a held tenure, and again after each change. Any change stops passes
 * until the listing is back; a listing with another node (READ: a node that is
 * not a reader) means another process waits, for the rest of the tenure. A
 * listing without our node means the node was deleted by someone else: the tenure
 * is revoked. A listing that fails is asked for again a few times, with a
 * growing delay; until one comes back, passes stay bounded. Its callbacks read
 * and change the tenure under the cohort's lock. Works on every server that has
 * children watches (3.4 and later).
 */
final class TenureWatch {

	/** How many times a failed listing is asked for again, the delay doubling each time. */
	static final int RETRIES = 4;

	/** The delay before the first retry of a failed listing. */
	static final long RETRY_MILLIS = 100;

	private static final Logger logger = LoggerFactory.getLogger(TenureWatch.class);

	private final CuratorFramework client;

	private final LocalCohort cohort;

	TenureWatch(CuratorFramework client, LocalCohort cohort) {
		this.client = client;
		this.cohort = cohort;
	}

	/**
	 * List and watch the queue for a held tenure.
	 */
	void list(LocalCohort.Tenure tenure, String path) {
		list(tenure, path, 0);
	}

	private void list(LocalCohort.Tenure tenure, String path, int failures) {
		Watcher changed = (event) -> changed(tenure, path);
		try {
			this.client.getChildren()
				.usingWatcher(changed)
				.inBackground((c, event) -> listed(tenure, path, event, failures))
				.forPath(path);
		}
		catch (Exception ex) {
			logger.debug("Could not list the queue of lock '{}' key '{}' at {}", this.cohort.name,
					LockPaths.abbreviate(this.cohort.key), path, ex);
			failed(tenure, path, failures);
		}
	}

	private void changed(LocalCohort.Tenure tenure, String path) {
		ReentrantLock lock = this.cohort.lock;
		lock.lock();
		try {
			if (tenure.ended) {
				return;
			}
			tenure.suspect = true;
			if (this.cohort.mode() != LockMode.READ) {
				// any node created beside ours is another process waiting
				tenure.othersWait = true;
			}
		}
		finally {
			lock.unlock();
		}
		list(tenure, path, 0);
	}

	// Under the cohort's lock, as every other reader and writer of the tenure; what follows from it, after
	private void listed(LocalCohort.Tenure tenure, String path, CuratorEvent event, int failures) {
		boolean gone = false;
		boolean failed = false;
		ReentrantLock lock = this.cohort.lock;
		lock.lock();
		try {
			LockNode node = tenure.node;
			if (tenure.ended || node == null) {
				return;
			}
			List<String> children = event.getChildren();
			if (!Nodes.isOk(event) || children == null) {
				// no listing, no watch: stays bounded, and suspect if it was, until a listing comes
				tenure.watch = LocalCohort.Tenure.REQUESTED;
				failed = true;
			}
			else if (!children.contains(ZKPaths.getNodeFromPath(node.path()))) {
				gone = true;
			}
			else {
				if (othersIn(children, ZKPaths.getNodeFromPath(node.path()))) {
					tenure.othersWait = true;
				}
				tenure.watch = LocalCohort.Tenure.WATCHED;
				tenure.suspect = false;
			}
		}
		finally {
			lock.unlock();
		}
		if (gone) {
			this.cohort.tenureGone(tenure, LockLossReason.REVOKED);
		}
		else if (failed) {
			logger.debug("Could not list the queue of lock '{}' key '{}' at {}: {}", this.cohort.name,
					LockPaths.abbreviate(this.cohort.key), path, KeeperException.Code.get(event.getResultCode()));
			failed(tenure, path, failures);
		}
	}

	// Another node than ours (READ: a node that is not a reader's)
	private boolean othersIn(List<String> children, String ours) {
		for (String child : children) {
			if (!child.equals(ours) && (this.cohort.mode() != LockMode.READ || !child.contains(LockNodeNames.READ))) {
				return true;
			}
		}
		return false;
	}

	// Asked for again a few times: meanwhile and after, the tenure's passes stay bounded
	private void failed(LocalCohort.Tenure tenure, String path, int failures) {
		if (failures >= RETRIES) {
			logger.debug("Gave up listing the queue of lock '{}' key '{}' at {}; the tenure's passes stay bounded",
					this.cohort.name, LockPaths.abbreviate(this.cohort.key), path);
			return;
		}
		long delay = RETRY_MILLIS << failures;
		this.cohort.cohorts.schedule(() -> {
			if (isUnwatched(tenure)) {
				list(tenure, path, failures + 1);
			}
		}, delay, TimeUnit.MILLISECONDS);
	}

	// Still held, and no other listing came back meanwhile
	private boolean isUnwatched(LocalCohort.Tenure tenure) {
		ReentrantLock lock = this.cohort.lock;
		lock.lock();
		try {
			return tenure.isHeld() && tenure.watch != LocalCohort.Tenure.WATCHED;
		}
		finally {
			lock.unlock();
		}
	}

}
