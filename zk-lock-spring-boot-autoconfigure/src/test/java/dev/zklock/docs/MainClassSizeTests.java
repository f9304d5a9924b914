package dev.zklock.docs;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every main source file of every module, Java or Kotlin, has at most
 * {@value #MAX_LINES} lines, so that each class stays one job a reader can take in.
 * {@code *Properties.java} files are exempt: their length is the Javadoc that
 * becomes the configuration metadata.
 */
class MainClassSizeTests {

	private static final int MAX_LINES = 300;

	private static final Pattern MAIN_SOURCE = Pattern.compile(".*/src/main/(java/.*\\.java|kotlin/.*\\.kt)");

	// build output and tool directories hold no sources of ours, and walking them is slow
	private static final Set<String> SKIPPED_DIRECTORIES = Set.of("target", "node_modules", ".git", ".mvn");

	@Test
	void everyMainSourceFileHasAtMost300Lines() throws IOException {
		Path root = MarkdownPages.ofRepository().root();
		List<Path> sources = mainSources(root);
		assertThat(sources).as("main source files found in " + root).hasSizeGreaterThan(100);
		assertThat(oversized(root, sources)).as("main source files over " + MAX_LINES + " lines").isEmpty();
	}

	@Test
	void namesEachOversizedMainSourceWithItsLineCount(@TempDir Path root) throws IOException {
		write(root, "module/src/main/java/a/Big.java", MAX_LINES + 1);
		write(root, "module/src/main/java/a/Fits.java", MAX_LINES);
		write(root, "module/src/main/kotlin/a/Big.kt", MAX_LINES + 5);
		write(root, "module/src/main/java/a/ZkLockProperties.java", MAX_LINES * 2);
		write(root, "module/src/test/java/a/BigTests.java", MAX_LINES * 2);
		write(root, "module/src/main/resources/a/Big.java", MAX_LINES * 2);
		write(root, "module/target/generated/src/main/java/a/Big.java", MAX_LINES * 2);
		write(root, "other/nested/src/main/java/b/Bigger.java", MAX_LINES * 3);
		assertThat(oversized(root, mainSources(root))).containsExactly("module/src/main/java/a/Big.java: 301 lines",
				"module/src/main/kotlin/a/Big.kt: 305 lines", "other/nested/src/main/java/b/Bigger.java: 900 lines");
	}

	@Test
	void countsALastLineWithoutLineBreak(@TempDir Path root) throws IOException {
		Path file = root.resolve("m/src/main/java/a/Tail.java");
		Files.createDirectories(file.getParent());
		Files.writeString(file, "line\n".repeat(MAX_LINES) + "no line break");
		assertThat(oversized(root, mainSources(root))).containsExactly("m/src/main/java/a/Tail.java: 301 lines");
	}

	/**
	 * The main Java and Kotlin sources below the root, sorted, without build output.
	 */
	private static List<Path> mainSources(Path root) throws IOException {
		List<Path> sources = new ArrayList<>();
		Files.walkFileTree(root, new SimpleFileVisitor<>() {

			@Override
			public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
				Path name = dir.getFileName();
				boolean skipped = !dir.equals(root) && name != null && SKIPPED_DIRECTORIES.contains(name.toString());
				return skipped ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
			}

			@Override
			public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
				if (MAIN_SOURCE.matcher("/" + relative(root, file)).matches()) {
					sources.add(file);
				}
				return FileVisitResult.CONTINUE;
			}

		});
		sources.sort(null);
		return sources;
	}

	/**
	 * Each source over the limit, except {@code *Properties.java}, as
	 * {@code path: N lines}.
	 */
	private static List<String> oversized(Path root, List<Path> sources) throws IOException {
		List<String> oversized = new ArrayList<>();
		for (Path source : sources) {
			if (source.getFileName().toString().endsWith("Properties.java")) {
				continue;
			}
			long lines;
			try (Stream<String> stream = Files.lines(source)) {
				lines = stream.count();
			}
			if (lines > MAX_LINES) {
				oversized.add(relative(root, source) + ": " + lines + " lines");
			}
		}
		return oversized;
	}

	private static String relative(Path root, Path file) {
		return root.relativize(file).toString().replace('\\', '/');
	}

	private static void write(Path root, String path, int lines) throws IOException {
		Path file = root.resolve(path);
		Files.createDirectories(file.getParent());
		Files.writeString(file, "// line\n".repeat(lines));
	}

}
