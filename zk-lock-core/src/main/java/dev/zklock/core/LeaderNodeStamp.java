package dev.zklock.core;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites a new leader's node with its own data, so that the node's modification
 * time tells every instance since when it leads: its creation time only tells when
 * it joined the queue. Runs in the background; a node gone meanwhile is no
 * leader any more, so nothing is lost when the write fails.
 */
final class LeaderNodeStamp {

	private static final Logger logger = LoggerFactory.getLogger(LeaderNodeStamp.class);

	private final CuratorFramework client;

	LeaderNodeStamp(CuratorFramework client) {
		this.client = client;
	}

	/**
	 * Rewrite the term's node with its own data, in the background.
	 * @param term the new leadership
	 */
	void stamp(LeadershipTerm term) {
		String path = term.nodePath();
		try {
			this.client.getData().inBackground((client, read) -> {
				if (read.getResultCode() != KeeperException.Code.OK.intValue()) {
					return;
				}
				client.setData().withVersion(read.getStat().getVersion()).inBackground((ignored, written) -> {
					if (written.getResultCode() != KeeperException.Code.OK.intValue()) {
						logger.debug("Could not stamp the leader node {} of role '{}': {}", path, term.role(),
								KeeperException.Code.get(written.getResultCode()));
					}
				}).forPath(path, read.getData());
			}).forPath(path);
		}
		catch (Exception ex) {
			logger.debug("Could not stamp the leader node {} of role '{}'", path, term.role(), ex);
		}
	}

}
