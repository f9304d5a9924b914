package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import org.apache.curator.utils.PathUtils;

/**
 * Where locks live: {@code <basePath>/<name>/<key>}, the name and the key each
 * encoded by {@link KeyEncoder} into one safe path segment, under a base path that
 * is checked once, when the engine is built.
 */
final class LockPaths {

	private final String basePath;

	LockPaths(String basePath) {
		this.basePath = normalizeBasePath(basePath);
	}

	String basePath() {
		return this.basePath;
	}

	/**
	 * The path of one key of a lock: the parent of its queue.
	 */
	String pathFor(String name, @Nullable String key) {
		String keySegment = (key != null) ? KeyEncoder.encode(key) : KeyEncoder.NO_KEY;
		return namePath(name) + "/" + keySegment;
	}

	/**
	 * The path of a lock name: the parent of its keys.
	 */
	String namePath(String name) {
		return this.basePath + "/" + KeyEncoder.encode(name);
	}

	static String normalizeBasePath(String basePath) {
		if (basePath == null || basePath.isBlank()) {
			throw new IllegalArgumentException("zk-lock.base-path must not be blank; use a node such as /locks");
		}
		String path = basePath.trim();
		while (path.length() > 1 && path.endsWith("/")) {
			path = path.substring(0, path.length() - 1);
		}
		try {
			PathUtils.validatePath(path);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"zk-lock.base-path '" + basePath + "' is not a valid ZooKeeper path: " + ex.getMessage(), ex);
		}
		if (path.equals("/")) {
			throw new IllegalArgumentException(
					"zk-lock.base-path must not be the root '/'; use a dedicated node such as /locks");
		}
		if (path.equals("/zookeeper") || path.startsWith("/zookeeper/")) {
			throw new IllegalArgumentException("zk-lock.base-path '" + basePath
					+ "' lies in ZooKeeper's reserved /zookeeper tree; use a dedicated node such as /locks");
		}
		return path;
	}

}
