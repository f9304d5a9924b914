package dev.zklock;

import org.jspecify.annotations.Nullable;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * {@link LockOwnerData} as one line of JSON: application name, host, pid and the
 * current thread's name, or for a node shared through local hand-off
 * {@code "localHandoff":true} instead of a thread. The part before the thread name is built once, the
 * whole per thread, and again when the thread's name changed.
 */
final class JsonLockOwnerData implements LockOwnerData {

	private final String prefix;

	// a tenure's node is shared by threads in turn: it names the process
	private final byte[] instance;

	// Thread name and its bytes; JDK types only, so a pooled thread never pins this class
	private final ThreadLocal<Map.Entry<String, byte[]>> perThread = new ThreadLocal<>();

	JsonLockOwnerData(@Nullable String applicationName) {
		StringBuilder json = new StringBuilder(96).append('{');
		if (applicationName != null && !applicationName.isBlank()) {
			appendString(json, "app", applicationName).append(',');
		}
		appendString(json, "host", hostName()).append(',');
		json.append("\"pid\":").append(ProcessHandle.current().pid());
		this.instance = (json + ",\"localHandoff\":true}").getBytes(StandardCharsets.UTF_8);
		this.prefix = json.append(",\"thread\":\"").toString();
	}

	@Override
	public byte[] forInstance() {
		return this.instance.clone();
	}

	@Override
	public byte[] forCurrentThread() {
		String threadName = Thread.currentThread().getName();
		Map.Entry<String, byte[]> cached = this.perThread.get();
		if (cached == null || !cached.getKey().equals(threadName)) {
			cached = Map.entry(threadName, build(threadName));
			this.perThread.set(cached);
		}
		// a copy, so that a caller cannot change what later nodes store
		return cached.getValue().clone();
	}

	private byte[] build(String threadName) {
		StringBuilder json = new StringBuilder(this.prefix.length() + 48).append(this.prefix);
		escape(json, threadName);
		return json.append("\"}").toString().getBytes(StandardCharsets.UTF_8);
	}

	private static StringBuilder appendString(StringBuilder json, String name, String value) {
		json.append('"').append(name).append("\":\"");
		escape(json, value);
		return json.append('"');
	}

	private static void escape(StringBuilder json, String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == '"' || c == '\\') {
				json.append('\\').append(c);
			}
			else if (c < 0x20) {
				json.append(String.format("\\u%04x", (int) c));
			}
			else {
				json.append(c);
			}
		}
	}

	// The environment first: a reverse DNS lookup can be slow
	private static String hostName() {
		for (String variable : new String[] { "HOSTNAME", "COMPUTERNAME" }) {
			String value = System.getenv(variable);
			if (value != null && !value.isBlank()) {
				return value.trim();
			}
		}
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (Exception ex) {
			return "unknown";
		}
	}

}
