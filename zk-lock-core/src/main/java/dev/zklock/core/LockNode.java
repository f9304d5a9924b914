package dev.zklock.core;

/**
 * The ZooKeeper node that stands for one holder of a lock.
 *
 * @param path the full path of the node
 * @param czxid its creation zxid: the holder's fencing token
 * @param session the id of the session that owns the ephemeral node
 */
record LockNode(String path, long czxid, long session) {

}
