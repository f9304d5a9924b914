package dev.zklock.faults;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;

/**
 * How a worker thread reaches the resource its lock protects: a counter per key that
 * a critical section reads on entry, then writes, then leaves. One instance per
 * thread.
 */
interface ResourceClient extends AutoCloseable {

	/**
	 * Enter a critical section and read the counter.
	 * @param key the key
	 * @param token the holder's fencing token, 0 without a lock
	 * @return the counter's value, or -1 when the resource rejected the stale token
	 */
	long enter(String key, long token);

	/**
	 * Write the counter.
	 * @param key the key
	 * @param value the new value
	 * @param checked whether {@code assertHeld()} passed just before
	 * @return whether the resource applied the write
	 */
	boolean write(String key, long value, boolean checked);

	/**
	 * Leave the critical section.
	 * @param key the key
	 */
	void exit(String key);

	/**
	 * Read the counter without entering a section: what a reader under a READ lock
	 * does, twice, to see whether a write came between.
	 * @param key the key
	 * @return the counter's value
	 */
	long peek(String key);

	@Override
	void close();

	/**
	 * A client of the resource described by a worker's {@code --resource} argument.
	 * @param resource {@code checker:127.0.0.1:port}, {@code file:/directory}, or both
	 * joined by {@code +} (see {@link Both})
	 * @return a new client
	 */
	static ResourceClient connect(String resource) {
		return connect(resource, false);
	}

	/**
	 * A client of the resource described by a worker's {@code --resource} argument,
	 * for a thread that locks with local hand-off: the {@link ProtectedResource} then
	 * lets its sections repeat the token of the section before, as holders of one
	 * tenure share a token.
	 * @param resource {@code checker:127.0.0.1:port}, {@code file:/directory}, or both
	 * joined by {@code +}
	 * @param tenure whether the thread's holds may share a tenure's token
	 * @return a new client
	 */
	static ResourceClient connect(String resource, boolean tenure) {
		int plus = resource.indexOf('+');
		if (plus > 0) {
			return new Both(connect(resource.substring(0, plus), tenure), connect(resource.substring(plus + 1), tenure));
		}
		if (resource.startsWith("checker:")) {
			return new Checker(resource.substring("checker:".length()), tenure);
		}
		if (resource.startsWith("file:")) {
			return new FileCounter(Path.of(resource.substring("file:".length())));
		}
		throw new IllegalArgumentException(
				"--resource must be checker:127.0.0.1:port, file:/directory or both joined by +, not " + resource);
	}

	/**
	 * The {@link ProtectedResource} in the test JVM. A checker for a thread that locks
	 * with local hand-off marks its sections as tenure sections ({@code E key token T}).
	 */
	final class Checker implements ResourceClient {

		private final String tenure;

		private final Socket socket;

		private final BufferedReader in;

		private final BufferedWriter out;

		Checker(String address, boolean tenure) {
			this.tenure = tenure ? " T" : "";
			String[] hostAndPort = address.split(":");
			try {
				this.socket = new Socket();
				this.socket.setTcpNoDelay(true);
				this.socket.connect(new InetSocketAddress(hostAndPort[0], Integer.parseInt(hostAndPort[1])), 5000);
				this.in = new BufferedReader(new InputStreamReader(this.socket.getInputStream(), StandardCharsets.UTF_8));
				this.out = new BufferedWriter(
						new OutputStreamWriter(this.socket.getOutputStream(), StandardCharsets.UTF_8));
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not reach the protected resource at " + address, ex);
			}
		}

		@Override
		public long enter(String key, long token) {
			String answer = call("E " + key + " " + token + this.tenure);
			return answer.equals("R") ? -1 : Long.parseLong(answer.substring(2));
		}

		@Override
		public boolean write(String key, long value, boolean checked) {
			return call("W " + key + " 0 " + value + " " + checked).equals("A");
		}

		@Override
		public void exit(String key) {
			call("X " + key);
		}

		@Override
		public long peek(String key) {
			return Long.parseLong(call("P " + key).substring(2));
		}

		private String call(String request) {
			try {
				this.out.write(request);
				this.out.newLine();
				this.out.flush();
				String answer = this.in.readLine();
				if (answer == null) {
					throw new IOException("the resource closed the connection");
				}
				return answer;
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Protected resource failed on '" + request + "'", ex);
			}
		}

		@Override
		public void close() {
			try {
				this.socket.close();
			}
			catch (IOException ex) {
				// closing anyway
			}
		}

	}

	/**
	 * Two resources behind one critical section, for {@code first+second}: the first
	 * (the fenced {@link ProtectedResource}) decides, and the second (a
	 * {@link FileCounter}) counts every section the first accepted with an increment
	 * of its own, read on entry and written after the first accepted the write.
	 */
	final class Both implements ResourceClient {

		private final ResourceClient first;

		private final ResourceClient second;

		private final Map<String, Long> secondValues = new HashMap<>();

		Both(ResourceClient first, ResourceClient second) {
			this.first = first;
			this.second = second;
		}

		@Override
		public long enter(String key, long token) {
			long value = this.first.enter(key, token);
			if (value >= 0) {
				this.secondValues.put(key, this.second.enter(key, token));
			}
			return value;
		}

		@Override
		public boolean write(String key, long value, boolean checked) {
			boolean accepted = this.first.write(key, value, checked);
			Long read = this.secondValues.remove(key);
			if (accepted && read != null) {
				this.second.write(key, read + 1, checked);
			}
			return accepted;
		}

		@Override
		public void exit(String key) {
			this.secondValues.remove(key);
			this.second.exit(key);
			this.first.exit(key);
		}

		@Override
		public long peek(String key) {
			return this.first.peek(key);
		}

		@Override
		public void close() {
			this.second.close();
			this.first.close();
		}

	}

	/**
	 * A counter kept in a file per key, read and written without any atomicity: only
	 * the lock keeps increments from being lost. The file is replaced in one step so
	 * that a reader never sees it half written.
	 */
	final class FileCounter implements ResourceClient {

		private final Path directory;

		FileCounter(Path directory) {
			this.directory = directory;
		}

		@Override
		public long enter(String key, long token) {
			Path file = this.directory.resolve(key + ".txt");
			try {
				return Files.exists(file) ? Long.parseLong(Files.readString(file).trim()) : 0;
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not read " + file, ex);
			}
		}

		@Override
		public boolean write(String key, long value, boolean checked) {
			Path file = this.directory.resolve(key + ".txt");
			try {
				Path next = Files.createTempFile(this.directory, key, ".tmp");
				Files.writeString(next, Long.toString(value));
				Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
				return true;
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not write " + file, ex);
			}
		}

		@Override
		public void exit(String key) {
		}

		@Override
		public long peek(String key) {
			return enter(key, 0);
		}

		@Override
		public void close() {
		}

	}

}
