package dev.zklock.leader;

import java.util.function.Consumer;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches a leader's node for as long as the leadership lasts, so that a node
 * deleted by another client (an operator, a clean-up script) ends the leadership
 * within a round trip: the next candidate leads at once, and a lock holder's way
 * of noticing only on a reconnection or after a pause would leave two leaders for
 * as long as the session lives. Runs in the background.
 */
final class LeaderNodeWatch {

	private static final Logger logger = LoggerFactory.getLogger(LeaderNodeWatch.class);

	private final CuratorFramework client;

	private final Consumer<LeadershipTerm> deleted;

	/**
	 * Create a new instance.
	 * @param client the client
	 * @param deleted told when the node of a term is gone; it checks that the term
	 * is still the current one
	 */
	LeaderNodeWatch(CuratorFramework client, Consumer<LeadershipTerm> deleted) {
		this.client = client;
		this.deleted = deleted;
	}

	void watch(LeadershipTerm term) {
		String path = term.nodePath();
		try {
			this.client.checkExists().usingWatcher((Watcher) (event) -> changed(term, event)).inBackground((c, read) -> {
				if (read.getResultCode() == KeeperException.Code.NONODE.intValue()) {
					// gone before the watch was set
					this.deleted.accept(term);
				}
			}).forPath(path);
		}
		catch (Exception ex) {
			logger.debug("Could not watch the leader node {} of role '{}'", path, term.role(), ex);
		}
	}

	private void changed(LeadershipTerm term, WatchedEvent event) {
		if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
			this.deleted.accept(term);
		}
		else if (event.getType() != Watcher.Event.EventType.None && !term.isEnded()) {
			// a watch fires once: the leader's own stamp of the node used it up
			watch(term);
		}
	}

}
