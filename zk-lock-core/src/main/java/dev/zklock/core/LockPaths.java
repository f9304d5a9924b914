package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import org.apache.curator.utils.PathUtils;

/**
 * Where locks live: {@code <basePath>/<name>/<key>}, under a base path that is
 * checked once, when the engine is built, and how any lock name or key becomes
 * exactly one safe ZooKeeper path segment of it. Keys
 * are data, never paths: {@code /}, {@code .}, {@code ..}, control characters and
 * non-ASCII text are percent-encoded, so the result is printable ASCII that
 * ZooKeeper accepts and that can never climb out of its parent node.
 * <p>
 * Encoding is injective: ASCII letters, digits and {@code -_.~:@=+,} are kept,
 * every other character is written as {@code %XX} per byte of its UTF-8 form
 * (a lone surrogate gets its own three-byte form, so it cannot collide with
 * {@code ?}). A segment that is {@code .} or {@code ..} has its dots encoded.
 * Encoded text longer than {@value #MAX_PLAIN_LENGTH} characters becomes a
 * readable prefix, {@code #} and the SHA-256 of the key. Because {@code #} is
 * always encoded, segments starting with {@code #} ({@link #NO_KEY},
 * {@link #EMPTY_KEY}, and {@link #WAITS} beside the lock names) can never be
 * produced by a key or a name.
 * <p>
 * The segment encoding is static and public, for the Boot layer and the adapters
 * that read lock paths back; the paths of one base path are the engine's.
 */
public final class LockPaths {

	/**
	 * Segment used for a request without keys: one lock for the whole name.
	 */
	public static final String NO_KEY = "#nokey";

	/**
	 * Segment used for the empty string.
	 */
	public static final String EMPTY_KEY = "#empty";

	/**
	 * Segment under the base path, beside the lock names, where long waits are
	 * published for deadlock detection.
	 */
	public static final String WAITS = "#waits";

	/**
	 * Longest encoded segment kept as is; longer ones are hashed.
	 */
	public static final int MAX_PLAIN_LENGTH = 128;

	/**
	 * Length of the readable prefix kept in front of the hash of a long key.
	 */
	static final int HASHED_PREFIX_LENGTH = 64;

	private static final char HASH_SEPARATOR = '#';

	private static final char[] HEX = "0123456789ABCDEF".toCharArray();

	private static final String SAFE_PUNCTUATION = "-_.~:@=+,";

	private final String basePath;

	/**
	 * Encode a name or key into one path segment.
	 * @param key the raw key, not {@code null}
	 * @return a valid ZooKeeper path segment, never {@code .}, {@code ..} or empty,
	 * without {@code /}, at most {@code 1 + HASHED_PREFIX_LENGTH + 64} characters
	 * long when hashed
	 */
	public static String encode(String key) {
		if (key == null) {
			throw new IllegalArgumentException("Key must not be null");
		}
		if (key.isEmpty()) {
			return EMPTY_KEY;
		}
		if (key.equals(".")) {
			return "%2E";
		}
		if (key.equals("..")) {
			return "%2E%2E";
		}
		String encoded = percentEncode(key);
		if (encoded.length() <= MAX_PLAIN_LENGTH) {
			return encoded;
		}
		return readablePrefix(encoded) + HASH_SEPARATOR + sha256Hex(key);
	}

	/**
	 * Shorten a key for log and exception messages.
	 * @param key the raw key, may be {@code null}
	 * @return the key ({@code "null"} for none), or its first characters and its
	 * length when it is long
	 */
	public static String abbreviate(@Nullable String key) {
		if (key == null) {
			return "null";
		}
		if (key.length() <= MAX_PLAIN_LENGTH) {
			return key;
		}
		return key.substring(0, HASHED_PREFIX_LENGTH) + "...(" + key.length() + " chars)";
	}

	private static String percentEncode(String key) {
		if (isAllSafe(key)) {
			return key;
		}
		StringBuilder out = new StringBuilder(key.length() + 8);
		byte[] buffer = new byte[4];
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (isSafe(c)) {
				out.append(c);
				continue;
			}
			int codePoint = c;
			if (isSurrogatePair(key, i)) {
				codePoint = Character.toCodePoint(c, key.charAt(++i));
			}
			int length = writeUtf8(codePoint, buffer);
			for (int b = 0; b < length; b++) {
				out.append('%').append(HEX[(buffer[b] >> 4) & 0xF]).append(HEX[buffer[b] & 0xF]);
			}
		}
		return out.toString();
	}

	// The common case: nothing to escape, so no copy
	private static boolean isAllSafe(String key) {
		for (int i = 0; i < key.length(); i++) {
			if (!isSafe(key.charAt(i))) {
				return false;
			}
		}
		return true;
	}

	private static boolean isSafe(char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
				|| SAFE_PUNCTUATION.indexOf(c) >= 0;
	}

	private static boolean isSurrogatePair(String key, int i) {
		return Character.isHighSurrogate(key.charAt(i)) && i + 1 < key.length()
				&& Character.isLowSurrogate(key.charAt(i + 1));
	}

	// UTF-8, except that a lone surrogate is written in its three-byte form
	private static int writeUtf8(int codePoint, byte[] out) {
		if (codePoint < 0x80) {
			out[0] = (byte) codePoint;
			return 1;
		}
		if (codePoint < 0x800) {
			out[0] = (byte) (0xC0 | (codePoint >> 6));
			out[1] = (byte) (0x80 | (codePoint & 0x3F));
			return 2;
		}
		if (codePoint < 0x10000) {
			out[0] = (byte) (0xE0 | (codePoint >> 12));
			out[1] = (byte) (0x80 | ((codePoint >> 6) & 0x3F));
			out[2] = (byte) (0x80 | (codePoint & 0x3F));
			return 3;
		}
		out[0] = (byte) (0xF0 | (codePoint >> 18));
		out[1] = (byte) (0x80 | ((codePoint >> 12) & 0x3F));
		out[2] = (byte) (0x80 | ((codePoint >> 6) & 0x3F));
		out[3] = (byte) (0x80 | (codePoint & 0x3F));
		return 4;
	}

	private static String readablePrefix(String encoded) {
		int end = HASHED_PREFIX_LENGTH;
		// never cut a %XX escape in half
		if (encoded.charAt(end - 1) == '%') {
			end -= 1;
		}
		else if (encoded.charAt(end - 2) == '%') {
			end -= 2;
		}
		return encoded.substring(0, end);
	}

	// Same byte form as the escapes, so distinct keys always hash distinct input
	private static String sha256Hex(String key) {
		MessageDigest digest = sha256();
		byte[] buffer = new byte[4];
		for (int i = 0; i < key.length(); i++) {
			int codePoint = key.charAt(i);
			if (isSurrogatePair(key, i)) {
				codePoint = Character.toCodePoint(key.charAt(i), key.charAt(++i));
			}
			digest.update(buffer, 0, writeUtf8(codePoint, buffer));
		}
		StringBuilder hex = new StringBuilder(64);
		for (byte b : digest.digest()) {
			hex.append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
		}
		return hex.toString();
	}

	private static MessageDigest sha256() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available in this JVM", ex);
		}
	}


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
		String keySegment = (key != null) ? encode(key) : NO_KEY;
		return namePath(name) + "/" + keySegment;
	}

	/**
	 * The parent of the published waits, which no lock name can take.
	 */
	String waitsPath() {
		return this.basePath + "/" + WAITS;
	}

	/**
	 * The path of a lock name: the parent of its keys.
	 */
	String namePath(String name) {
		return this.basePath + "/" + encode(name);
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
