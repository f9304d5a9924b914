package dev.zklock.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Runs the commands that a {@link LoopbackFirewall} needs: {@code nft} scripts, and
 * checks that {@code nft} and {@code setpriv} can be run at all.
 */
final class NftCommands {

	private NftCommands() {
	}

	static boolean onPath(String command) {
		String path = System.getenv("PATH");
		List<String> directories = new ArrayList<>((path != null) ? List.of(path.split(":")) : List.of());
		directories.addAll(List.of("/usr/sbin", "/sbin"));
		return directories.stream().anyMatch((directory) -> Files.isExecutable(Path.of(directory, command)));
	}

	// null when the command succeeded, else its output
	static @Nullable String run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(30, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				return "did not finish within 30 s";
			}
			return (process.exitValue() == 0) ? null : output.trim();
		}
		catch (IOException ex) {
			return ex.getMessage();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "interrupted";
		}
	}

	static Result nft(String script) {
		try {
			Process process = new ProcessBuilder(nftCommand(), "-f", "-").redirectErrorStream(true).start();
			process.getOutputStream().write(script.getBytes(StandardCharsets.UTF_8));
			process.getOutputStream().close();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(30, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				return new Result(-1, "nft did not finish within 30 s");
			}
			return new Result(process.exitValue(), output);
		}
		catch (IOException ex) {
			return new Result(-1, "could not run nft: " + ex.getMessage());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return new Result(-1, "interrupted while running nft");
		}
	}

	private static String nftCommand() {
		return List.of("/usr/sbin/nft", "/sbin/nft")
			.stream()
			.filter((candidate) -> Files.isExecutable(Path.of(candidate)))
			.findFirst()
			.orElse("nft");
	}

	/**
	 * What {@code nft} answered.
	 * @param status its exit status, -1 when it could not run or did not finish
	 * @param output its output, or why it did not run
	 */
	record Result(int status, String output) {

	}

}
