package dev.zklock.core;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.testsupport.JvmProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@link PauseDetector} in a JVM frozen with {@code SIGSTOP} for real: after each
 * {@code SIGCONT}, the first read of the checker thread, which stands for a lock
 * holder, must see the pause, either as silence or as a new pause epoch.
 */
class PauseDetectorProcessTests {

	private static final Logger logger = LoggerFactory.getLogger(PauseDetectorProcessTests.class);

	private static final int ROUNDS = 5;

	/** The probe reports freezes longer than this; the test freezes it longer still. */
	private static final Duration FREEZE = Duration.ofMillis(500);

	private static final Duration PAUSE = FREEZE.plusMillis(300);

	@TempDir
	Path directory;

	@Test
	void theFirstReadAfterSigcontSeesThePause() {
		List<String> output = new CopyOnWriteArrayList<>();
		JvmProcess probe = JvmProcess.builder("pause probe", PauseProbeMain.class.getName())
			.directory(this.directory)
			.arguments(List.of(Long.toString(FREEZE.toMillis())))
			.outputListener(output::add)
			.build();
		probe.start();
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> output.contains("ready"));
			for (int round = 1; round <= ROUNDS; round++) {
				int resumed = round;
				probe.pause();
				await().pollDelay(PAUSE).atMost(PAUSE.plusSeconds(5)).until(() -> true);
				probe.resume();
				await("resume " + round).atMost(Duration.ofSeconds(10)).until(() -> resumes(output).size() >= resumed);
			}
			List<String> resumes = resumes(output);
			logger.info("PauseDetector under SIGSTOP: {} pauses of {} ms, first read after SIGCONT: {}", ROUNDS,
					PAUSE.toMillis(), resumes);
			assertThat(resumes).hasSizeGreaterThanOrEqualTo(ROUNDS)
				.allSatisfy((line) -> assertThat(line).matches(".*(silent=true|epochChanged=true).*"));
		}
		finally {
			probe.kill();
		}
	}

	private static List<String> resumes(List<String> output) {
		return output.stream().filter((line) -> line.startsWith("resumed ")).toList();
	}

}
