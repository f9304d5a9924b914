package dev.zklock.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.springframework.boot.json.JsonParserFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GETs from the actuator of a test's web server on 127.0.0.1; a JSON answer can be
 * kept as a sample for the monitoring docs in {@code target/monitoring-samples}.
 */
public final class ActuatorHttp {

	private static final Path SAMPLES = Path.of("target", "monitoring-samples");

	private static final HttpClient http = HttpClient.newHttpClient();

	private ActuatorHttp() {
	}

	/**
	 * GET a path that must answer 200 with JSON.
	 * @param port the server's port
	 * @param path the path, such as {@code /actuator/locks}
	 * @param sample the file name to keep the answer as, or {@code null}
	 * @return the parsed answer
	 * @throws IOException when the request fails
	 * @throws InterruptedException when interrupted
	 */
	public static Map<String, Object> getJson(int port, String path, String sample)
			throws IOException, InterruptedException {
		HttpResponse<String> response = get(port, path);
		assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
		if (sample != null) {
			Files.createDirectories(SAMPLES);
			Files.writeString(SAMPLES.resolve(sample), response.body());
		}
		return JsonParserFactory.getJsonParser().parseMap(response.body());
	}

	/**
	 * GET a path.
	 * @param port the server's port
	 * @param path the path
	 * @return the answer
	 * @throws IOException when the request fails
	 * @throws InterruptedException when interrupted
	 */
	public static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(10))
			.GET()
			.build();
		return http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
