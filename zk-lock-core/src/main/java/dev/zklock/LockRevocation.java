package dev.zklock;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What a revocation removed: the holders of one key of a lock whose nodes were
 * deleted, so that the next waiter gets the lock with a higher fencing token.
 *
 * @param name the lock name
 * @param key the key, {@code null} for a lock without keys
 * @param path the ZooKeeper path of the key
 * @param revoked the holders removed, at least one
 * @param principal who asked for it, {@code null} when not known
 */
public record LockRevocation(String name, @Nullable String key, String path, List<RevokedHolder> revoked,
		@Nullable String principal) {

	/**
	 * Create a new instance.
	 * @param name the lock name
	 * @param key the key, {@code null} for a lock without keys
	 * @param path the ZooKeeper path of the key
	 * @param revoked the holders removed
	 * @param principal who asked for it, {@code null} when not known
	 */
	public LockRevocation {
		revoked = List.copyOf(revoked);
	}

	/**
	 * One holder whose node was deleted.
	 *
	 * @param node the node name
	 * @param path the node path
	 * @param owner the holder's owner data, {@code null} when the node had none
	 * @param fencingToken the holder's fencing token (creation zxid of its node)
	 * @param sessionId the holder's ZooKeeper session, in hex
	 */
	public record RevokedHolder(String node, String path, @Nullable String owner, long fencingToken,
			String sessionId) {

	}

}
