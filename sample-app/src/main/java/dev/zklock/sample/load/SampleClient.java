package dev.zklock.sample.load;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A small client of one sample instance's HTTP API, for the load script and tests.
 */
public final class SampleClient {

	private static final JsonMapper json = JsonMapper.builder().build();

	private final HttpClient http;

	private final URI base;

	private final Duration requestTimeout;

	/**
	 * Create a client of one instance.
	 * @param http the HTTP client, shared by several instances' clients
	 * @param base the instance's base URI, such as {@code http://127.0.0.1:8080}
	 * @param requestTimeout the longest wait for one answer
	 */
	public SampleClient(HttpClient http, URI base, Duration requestTimeout) {
		this.http = http;
		this.base = URI.create(base.toString().replaceAll("/+$", "") + "/");
		this.requestTimeout = requestTimeout;
	}

	/**
	 * An HTTP client for the sample: HTTP/1.1 and a short connect timeout.
	 * @return the client
	 */
	public static HttpClient httpClient() {
		return HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(5))
			.build();
	}

	/**
	 * The instance's base URI.
	 * @return the URI
	 */
	public URI base() {
		return this.base;
	}

	/**
	 * Place an order: {@code POST /orders}.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @param quantity the units
	 * @return the answer: 201 with the reserved order, 409 with the rejected order,
	 * 503 when the stock was busy
	 */
	public Answer placeOrder(String warehouse, String sku, int quantity) {
		return send("POST", "orders", Map.of("warehouse", warehouse, "sku", sku, "quantity", quantity));
	}

	/**
	 * Set the stock of a product: {@code PUT /stock/{warehouse}/{sku}}.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @param quantity the units on hand
	 * @return the answer
	 */
	public Answer setStock(String warehouse, String sku, int quantity) {
		return send("PUT", "stock/" + warehouse + "/" + sku, Map.of("quantity", quantity));
	}

	/**
	 * Send a GET request.
	 * @param path the path below the base URI, such as {@code stock/berlin/mug}
	 * @return the answer
	 */
	public Answer get(String path) {
		return send("GET", path, null);
	}

	/**
	 * Send a request.
	 * @param method the method
	 * @param path the path below the base URI
	 * @param body the JSON body, or {@code null}
	 * @return the answer
	 * @throws UncheckedIOException when the instance does not answer
	 */
	public Answer send(String method, String path, @Nullable Object body) {
		HttpRequest.Builder request = HttpRequest.newBuilder(this.base.resolve(path))
			.timeout(this.requestTimeout)
			.header("Accept", "application/json");
		if (body != null) {
			request.header("Content-Type", "application/json")
				.method(method, HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body)));
		}
		else {
			request.method(method, HttpRequest.BodyPublishers.noBody());
		}
		try {
			HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
			String text = response.body();
			JsonNode node = (text == null || text.isBlank()) ? json.missingNode() : json.readTree(text);
			return new Answer(response.statusCode(), node);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(method + " " + this.base.resolve(path) + " failed: " + ex, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted during " + method + " " + this.base.resolve(path), ex);
		}
	}

	/**
	 * An HTTP answer with a JSON body.
	 *
	 * @param status the status code
	 * @param body the body, a missing node when empty
	 */
	public record Answer(int status, JsonNode body) {

		/**
		 * Require a status.
		 * @param expected the expected status
		 * @return this answer
		 * @throws IllegalStateException naming the status and body when it differs
		 */
		public Answer expect(int expected) {
			if (this.status != expected) {
				throw new IllegalStateException("Expected HTTP " + expected + " but got " + this.status + ": "
						+ this.body);
			}
			return this;
		}

	}

}
