package dev.zklock.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.jspecify.annotations.Nullable;

/**
 * A few counters in a memory-mapped file, shared by every JVM that contends for
 * one lock: when the last holder started to release it, and how many acquisitions
 * there were in all, and the ZooKeeper requests every JVM sent, by type
 * ({@link OpCounts}). {@link System#nanoTime()} reads the machine's monotonic
 * clock, so release and acquisition times of two JVMs on one machine can be
 * subtracted.
 */
public final class HandoffBoard {

	/**
	 * System property with the board file of a contending JVM.
	 */
	public static final String FILE_PROPERTY = "zklock.bench.board";

	private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
			ByteOrder.nativeOrder());

	private static final int LAST_RELEASE = 0;

	private static final int ACQUISITIONS = 8;

	// then one counter per type of OpCounts.TYPES
	private static final int OPS = 16;

	private static final int SIZE = 128;

	private static @Nullable HandoffBoard shared;

	private final Path file;

	private final MappedByteBuffer buffer;

	private HandoffBoard(Path file) throws IOException {
		this.file = file;
		try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
				StandardOpenOption.WRITE)) {
			this.buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, SIZE);
		}
	}

	/**
	 * The board of this JVM: the file named by {@value #FILE_PROPERTY}, or a new
	 * temporary file.
	 * @return the board
	 */
	public static synchronized HandoffBoard shared() {
		if (shared == null) {
			try {
				String name = System.getProperty(FILE_PROPERTY);
				Path file = (name != null) ? Path.of(name) : Files.createTempFile("zk-lock-handoff", ".board");
				if (name == null) {
					file.toFile().deleteOnExit();
				}
				shared = new HandoffBoard(file);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not map the hand-off board", ex);
			}
		}
		return shared;
	}

	/**
	 * The mapped file, for a contending JVM to open.
	 * @return the file
	 */
	public Path file() {
		return this.file;
	}

	/**
	 * Note that a holder is about to release.
	 * @param nanos {@link System#nanoTime()} now
	 */
	public void releasing(long nanos) {
		LONGS.setVolatile(this.buffer, LAST_RELEASE, nanos);
	}

	/**
	 * When the last holder started to release.
	 * @return {@link System#nanoTime()} of that moment, 0 before the first release
	 */
	public long lastRelease() {
		return (long) LONGS.getVolatile(this.buffer, LAST_RELEASE);
	}

	/**
	 * Count one acquisition.
	 */
	public void acquired() {
		LONGS.getAndAdd(this.buffer, ACQUISITIONS, 1L);
	}

	/**
	 * Count one ZooKeeper request.
	 * @param type its index in {@link OpCounts#TYPES}
	 */
	public void countOp(int type) {
		LONGS.getAndAdd(this.buffer, OPS + 8 * type, 1L);
	}

	/**
	 * ZooKeeper requests sent by every JVM so far, by type.
	 * @return the counts, in the order of {@link OpCounts#TYPES}
	 */
	public long[] opCounts() {
		long[] counts = new long[OpCounts.TYPES.length];
		for (int i = 0; i < counts.length; i++) {
			counts[i] = (long) LONGS.getVolatile(this.buffer, OPS + 8 * i);
		}
		return counts;
	}

	/**
	 * Acquisitions counted by every JVM so far.
	 * @return the count
	 */
	public long acquisitions() {
		return (long) LONGS.getVolatile(this.buffer, ACQUISITIONS);
	}

}
