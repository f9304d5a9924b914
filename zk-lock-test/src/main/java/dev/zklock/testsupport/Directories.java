package dev.zklock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * Temporary directories of the fixtures.
 */
final class Directories {

	private Directories() {
	}

	static Path createTemporary(String prefix) {
		return createTemporary(null, prefix);
	}

	/**
	 * Create a temporary directory.
	 * @param parent where, or {@code null} for the default temporary directory
	 * @param prefix the name prefix
	 * @return the new directory
	 */
	static Path createTemporary(@Nullable Path parent, String prefix) {
		try {
			return (parent != null) ? Files.createTempDirectory(parent, prefix) : Files.createTempDirectory(prefix);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a temporary directory " + prefix + "*", ex);
		}
	}

	static Path create(Path directory) {
		try {
			return Files.createDirectories(directory);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create " + directory, ex);
		}
	}

	static void deleteRecursively(Path directory) {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
				Files.deleteIfExists(path);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not delete " + directory, ex);
		}
	}

}
