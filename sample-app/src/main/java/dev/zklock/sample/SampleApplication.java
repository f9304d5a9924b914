package dev.zklock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An inventory and orders service that shows zk-lock's features.
 */
@SpringBootApplication
public class SampleApplication {

	/**
	 * Start the sample.
	 * @param args command-line arguments
	 */
	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
