package dev.zklock.aop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.annotation.DistributedLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads of one JVM increment a counter kept in a file with a non-atomic
 * read, sleep, write. Through the annotation no increment is lost; without it,
 * the same load loses increments, which shows the test can fail.
 */
class DistributedLockExclusionTests {

	private static final int THREADS = 16;

	private static final int INCREMENTS_PER_THREAD = 5;

	private final ApplicationContextRunner contextRunner = TestZooKeeper.contextRunner()
		.withBean(FileCounter.class)
		.withPropertyValues("zk-lock.default-timeout=60s");

	@TempDir
	Path directory;

	@Test
	void annotatedIncrementsAreNeverLost() {
		this.contextRunner.run((context) -> {
			FileCounter counter = context.getBean(FileCounter.class);
			Path file = counterFile("locked");
			hammer(() -> counter.lockedIncrement(file));
			assertThat(read(file)).isEqualTo(THREADS * INCREMENTS_PER_THREAD);
		});
	}

	@Test
	void unlockedIncrementsAreLost() throws Exception {
		FileCounter counter = new FileCounter();
		Path file = counterFile("unlocked");
		hammer(() -> counter.unlockedIncrement(file));
		assertThat(read(file)).isLessThan(THREADS * INCREMENTS_PER_THREAD);
	}

	private Path counterFile(String name) throws IOException {
		return Files.writeString(this.directory.resolve(name + ".txt"), "0");
	}

	private static void hammer(Runnable increment) throws Exception {
		Hammer.hammer(THREADS, INCREMENTS_PER_THREAD, increment);
	}

	private static int read(Path file) {
		try {
			return Integer.parseInt(Files.readString(file).trim());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static class FileCounter {

		@DistributedLock(name = "file-counter", key = "#file.fileName.toString()")
		public void lockedIncrement(Path file) {
			unlockedIncrement(file);
		}

		public void unlockedIncrement(Path file) {
			int value = read(file);
			try {
				// Work inside the critical section, widening the race window
				Thread.sleep(3);
				// Replace the file in one step so that readers never see it half written
				Path next = Files.createTempFile(file.getParent(), "counter", ".tmp");
				Files.writeString(next, Integer.toString(value + 1));
				Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

}
