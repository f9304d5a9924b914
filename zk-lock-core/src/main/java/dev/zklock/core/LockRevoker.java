package dev.zklock.core;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockRevocation.RevokedHolder;
import dev.zklock.LockRevocation;
import dev.zklock.LockRevocationException.Problem;
import dev.zklock.LockRevocationException;
import dev.zklock.LockRevocationListener;

/**
 * Takes a lock away from its current holders, in whatever process they are: reads
 * the queue of {@code <base-path>/<name>/<key>} as the engine orders it, and deletes
 * the nodes that hold (the first MUTEX or WRITE node, every READ node no writer is
 * ahead of, every SEMAPHORE lease with fewer leases ahead of it than the permits
 * its name carries) in one transaction, each with the version it was
 * read with, so that a node that changed or went meanwhile fails the whole
 * revocation and nothing is half-done. The next waiter then gets the lock with a
 * higher fencing token; the holder learns it from its {@link RevocationWatch}.
 */
final class LockRevoker {

	// revocations are logged under the manager users know and configure
	private static final Logger logger = LoggerFactory.getLogger(LockRevoker.class);

	private final CuratorFramework client;

	private final LockPaths paths;

	private final List<LockRevocationListener> listeners = new CopyOnWriteArrayList<>();

	LockRevoker(CuratorFramework client, LockPaths paths) {
		this.client = client;
		this.paths = paths;
	}

	void addListener(LockRevocationListener listener) {
		this.listeners.add(listener);
	}

	/**
	 * Revoke the current holders of one key.
	 * @param name the lock name
	 * @param key the key, {@code null} for a lock without keys
	 * @param node the name of the one holder node to remove, or {@code null} for
	 * every holder
	 * @param principal who asks, for the log and the listeners, or {@code null}
	 * @return what was removed
	 * @throws LockRevocationException when nothing was removed
	 */
	LockRevocation revoke(String name, @Nullable String key, @Nullable String node, @Nullable String principal) {
		String namePath = this.paths.namePath(name);
		String keyPath = this.paths.pathFor(name, key);
		String what = "lock '" + name + "' key '" + LockPaths.abbreviate(key) + "'";
		if (!this.client.getZookeeperClient().isConnected()) {
			throw new LockRevocationException(Problem.UNAVAILABLE, "Cannot revoke " + what + " at " + keyPath
					+ ": ZooKeeper is not connected, so nothing was removed; check the zkLock health and try again",
					null);
		}
		List<Holder> holders;
		try {
			holders = holders(name, key, namePath, keyPath, what);
			if (node != null) {
				holders = holders.stream().filter((holder) -> holder.node().equals(node)).toList();
				if (holders.isEmpty()) {
					throw new LockRevocationException(Problem.NODE_NOT_FOUND, "Node '" + node
							+ "' is not a current holder of " + what + " at " + keyPath
							+ "; GET /actuator/locks/{name} shows the holders and their nodes", null);
				}
			}
			List<CuratorOp> deletes = new ArrayList<>(holders.size());
			for (Holder holder : holders) {
				deletes.add(this.client.transactionOp().delete().withVersion(holder.version()).forPath(holder.path()));
			}
			this.client.transaction().forOperations(deletes);
		}
		catch (LockRevocationException ex) {
			throw ex;
		}
		catch (KeeperException.NoNodeException | KeeperException.BadVersionException ex) {
			throw new LockRevocationException(Problem.CHANGED, "Did not revoke " + what + " at " + keyPath
					+ ": its holders changed meanwhile (" + ex.code() + "), so nothing was removed; look at the "
					+ "queue again and repeat the call if it is still stuck", ex);
		}
		catch (Exception ex) {
			throw new LockRevocationException(Problem.UNAVAILABLE, "Could not revoke " + what + " at " + keyPath
					+ ": " + ex + "; ZooKeeper applies a revocation in one transaction, so it was removed entirely "
					+ "or not at all: GET /actuator/locks/{name} shows which", ex);
		}
		List<RevokedHolder> revoked = new ArrayList<>(holders.size());
		for (Holder holder : holders) {
			revoked.add(holder.revoked());
			logger.warn("Lock '{}' key '{}' revoked: node {} of {} (fencing token {}, session {}) deleted at the "
					+ "request of {}; the next waiter gets the lock", name, LockPaths.abbreviate(key), holder.path(),
					(holder.owner() != null) ? holder.owner() : "an owner without data", holder.fencingToken(),
					holder.revoked().sessionId(), (principal != null) ? principal : "an unauthenticated caller");
		}
		LockRevocation revocation = new LockRevocation(name, key, keyPath, revoked, principal);
		for (LockRevocationListener listener : this.listeners) {
			try {
				listener.lockRevoked(revocation);
			}
			catch (RuntimeException ex) {
				// a meter or an audit must never undo or fail the revocation
				logger.warn("Lock revocation listener {} failed for lock '{}'", listener, name, ex);
			}
		}
		return revocation;
	}

	private List<Holder> holders(String name, @Nullable String key, String namePath, String keyPath, String what)
			throws Exception {
		if (this.client.checkExists().forPath(namePath) == null) {
			throw new LockRevocationException(Problem.LOCK_NOT_FOUND,
					"No lock named '" + name + "' exists at " + namePath + "; GET /actuator/locks lists the locks "
							+ "of this process, GET /actuator/locks/{name} the queues of one name",
					null);
		}
		List<String> children = children(keyPath);
		if (children == null) {
			throw new LockRevocationException(Problem.KEY_NOT_FOUND, "Lock '" + name + "' has no key '"
					+ LockPaths.abbreviate(key) + "' (no node " + keyPath + "); GET /actuator/locks/" + name
					+ " lists its keys", null);
		}
		List<Holder> holders = new ArrayList<>();
		List<String> leases = QueueRule.SEMAPHORE.sort(children);
		for (int i = 0; i < leases.size(); i++) {
			if (i < LockNodeNames.permits(leases.get(i))) {
				read(keyPath, leases.get(i), holders);
			}
		}
		for (String holder : LockNodeNames.holders(children)) {
			read(keyPath, holder, holders);
		}
		if (holders.isEmpty()) {
			throw new LockRevocationException(Problem.NO_HOLDER,
					"Nobody holds " + what + " at " + keyPath + ": there is nothing to revoke", null);
		}
		return holders;
	}


	private void read(String parent, String child, List<Holder> holders) throws Exception {
		String path = ZKPaths.makePath(parent, child);
		Stat stat = new Stat();
		byte[] data;
		try {
			data = this.client.getData().storingStatIn(stat).forPath(path);
		}
		catch (KeeperException.NoNodeException ex) {
			// released meanwhile: not a holder any more
			return;
		}
		String owner = (data != null && data.length > 0) ? new String(data, StandardCharsets.UTF_8) : null;
		holders.add(new Holder(child, path, owner, stat.getVersion(), stat.getCzxid(), stat.getEphemeralOwner()));
	}

	private @Nullable List<String> children(String path) throws Exception {
		try {
			return this.client.getChildren().forPath(path);
		}
		catch (KeeperException.NoNodeException ex) {
			return null;
		}
	}

	private record Holder(String node, String path, @Nullable String owner, int version, long fencingToken,
			long session) {

		RevokedHolder revoked() {
			return new RevokedHolder(this.node, this.path, this.owner, this.fencingToken,
					"0x" + Long.toHexString(this.session));
		}

	}

}
