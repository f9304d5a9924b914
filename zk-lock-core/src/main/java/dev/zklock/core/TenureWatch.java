package dev.zklock.core;

import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockLossReason;
import dev.zklock.annotation.LockMode;

/**
 * What a {@link LocalCohort} learns of the other processes: one listing of the
 * key's queue with a one-shot children watch, asked for once a local waiter queues
 * behind a held tenure, and again after each change. Any change stops passes
 * until the listing is back; a listing with another node (READ: a node that is
 * not a reader) means another process waits, for the rest of the tenure. A
 * listing without our node means the node was deleted by someone else: the tenure
 * is revoked. Works on every server that has children watches (3.4 and later).
 */
final class TenureWatch {

	private static final Logger logger = LoggerFactory.getLogger(TenureWatch.class);

	private final CuratorFramework client;

	private final AbstractLocalCohort cohort;

	TenureWatch(CuratorFramework client, AbstractLocalCohort cohort) {
		this.client = client;
		this.cohort = cohort;
	}

	/**
	 * List and watch the queue for a held tenure.
	 */
	void list(Tenure tenure, String path) {
		Watcher changed = (event) -> {
			if (tenure.ended) {
				return;
			}
			tenure.suspect = true;
			if (this.cohort.mode() != LockMode.READ) {
				// any node created beside ours is another process waiting
				tenure.othersWait = true;
			}
			list(tenure, path);
		};
		try {
			this.client.getChildren().usingWatcher(changed).inBackground((c, event) -> listed(tenure, event))
				.forPath(path);
		}
		catch (Exception ex) {
			logger.debug("Could not list the queue at {}; the tenure's passes stay bounded", path, ex);
		}
	}

	private void listed(Tenure tenure, CuratorEvent event) {
		LockNode node = tenure.node;
		if (tenure.ended || node == null) {
			return;
		}
		if (!Nodes.isOk(event) || event.getChildren() == null) {
			// no listing, no watch: stays bounded, and suspect until a listing comes
			tenure.watch = Tenure.REQUESTED;
			return;
		}
		List<String> children = event.getChildren();
		String ours = ZKPaths.getNodeFromPath(node.path());
		if (!children.contains(ours)) {
			this.cohort.tenureGone(tenure, LockLossReason.REVOKED);
			return;
		}
		boolean others = false;
		for (String child : children) {
			if (!child.equals(ours) && (this.cohort.mode() != LockMode.READ || !child.contains(LockNodeNames.READ))) {
				others = true;
				break;
			}
		}
		if (others) {
			tenure.othersWait = true;
		}
		tenure.watch = Tenure.WATCHED;
		tenure.suspect = false;
	}

}
