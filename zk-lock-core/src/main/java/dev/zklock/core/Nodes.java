package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.CompletableFuture;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The background ZooKeeper calls the attempts share: creating a lock node the way
 * Curator's recipes do, deleting it for sure, reading a result code, and telling
 * whether a node belongs to the client's current session; and the {@link LockNode}
 * record a granted node is known by from then on.
 */
final class Nodes {

	private Nodes() {
	}

	/**
	 * Create a protected node, and its parents as containers, in the background.
	 * @param client the client
	 * @param path the node path (for a sequential node, the name before the sequence)
	 * @param mode the create mode
	 * @param data the node data, or {@code null} for the client's default data
	 * @param callback told the outcome; the event carries the node's name and stat
	 * @throws Exception when the call cannot be sent
	 */
	static void create(CuratorFramework client, String path, CreateMode mode, byte @Nullable [] data,
			BackgroundCallback callback)
			throws Exception {
		if (data != null) {
			client.create()
				.creatingParentContainersIfNeeded()
				.withProtection()
				.withMode(mode)
				.inBackground(callback)
				.forPath(path, data);
		}
		else {
			client.create()
				.creatingParentContainersIfNeeded()
				.withProtection()
				.withMode(mode)
				.inBackground(callback)
				.forPath(path);
		}
	}

	/**
	 * Delete a node in the background; Curator keeps trying after a connection
	 * loss. A node already gone counts as deleted.
	 * @param client the client
	 * @param path the node path
	 * @return completes once the node is confirmed gone
	 */
	static CompletableFuture<Void> delete(CuratorFramework client, String path) {
		CompletableFuture<Void> deleted = new CompletableFuture<>();
		try {
			client.delete().guaranteed().inBackground((c, event) -> {
				if (isOk(event) || event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
					deleted.complete(null);
				}
				else {
					deleted.completeExceptionally(error(event));
				}
			}).forPath(path);
		}
		catch (Exception ex) {
			deleted.completeExceptionally(ex);
		}
		return deleted;
	}

	/**
	 * The node a create or exists event describes, reading its stat once when the
	 * event has none (Curator found a protected node again after a connection loss).
	 * @param client the client
	 * @param path the node path
	 * @param stat the stat from the event, or {@code null}
	 * @param result completed with the node, or exceptionally
	 */
	static void resolve(CuratorFramework client, String path, @Nullable Stat stat,
			CompletableFuture<LockNode> result) {
		if (stat != null && stat.getCzxid() != 0) {
			result.complete(new LockNode(path, stat.getCzxid(), stat.getEphemeralOwner()));
			return;
		}
		try {
			client.checkExists().inBackground((c, event) -> {
				Stat read = event.getStat();
				if (read == null) {
					result.completeExceptionally(new KeeperException.NoNodeException(path));
				}
				else {
					result.complete(new LockNode(path, read.getCzxid(), read.getEphemeralOwner()));
				}
			}).forPath(path);
		}
		catch (Exception ex) {
			result.completeExceptionally(ex);
		}
	}

	static boolean isOk(CuratorEvent event) {
		return event.getResultCode() == KeeperException.Code.OK.intValue();
	}

	static KeeperException error(CuratorEvent event) {
		return KeeperException.create(KeeperException.Code.get(event.getResultCode()), event.getPath());
	}

	/**
	 * Whether a node's ephemeral owner is the client's current session: only such a
	 * node can hold a lock or keep a place in a queue.
	 * @param client the client
	 * @param ephemeralOwner the node's owner from its stat, 0 for none
	 * @return whether it is the current session; false without a session
	 */
	static boolean isCurrentSession(CuratorFramework client, long ephemeralOwner) {
		try {
			return ephemeralOwner != 0 && ephemeralOwner == client.getZookeeperClient().getZooKeeper().getSessionId();
		}
		catch (Exception ex) {
			// no session to compare with: not ours for sure
			return false;
		}
	}

	/**
	 * A failure as an {@link Exception}, for futures that complete with one.
	 * @param ex what a future failed with
	 * @return the same exception, or an {@link Error} wrapped
	 */
	static Exception asException(Throwable ex) {
		return (ex instanceof Exception exception) ? exception : new IllegalStateException(ex);
	}

	/**
	 * The ZooKeeper node that stands for one holder of a lock.
	 *
	 * @param path the full path of the node
	 * @param czxid its creation zxid: the holder's fencing token
	 * @param session the id of the session that owns the ephemeral node
	 */
	record LockNode(String path, long czxid, long session) {

	}

}
