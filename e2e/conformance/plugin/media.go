package main

import (
	"encoding/base64"
	"encoding/binary"
)

// redPixelPNG is a 1x1 red PNG, the minimal test image the suite suggests.
var redPixelPNG = mustBase64("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")

// silentWAV is a minimal audio/wav file: 8 silent samples of 8-bit mono PCM
// at 8 kHz. Built from the RIFF layout rather than embedded as base64, so its
// header fields can be read here.
var silentWAV = wav(8000, make([]byte, 8))

// wav returns a RIFF/WAVE file holding samples as 8-bit mono PCM at rate Hz.
func wav(rate uint32, samples []byte) []byte {
	const fmtSize = 16
	b := make([]byte, 0, 44+len(samples))
	le := binary.LittleEndian
	b = append(b, "RIFF"...)
	b = le.AppendUint32(b, uint32(36+len(samples)))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, fmtSize)
	b = le.AppendUint16(b, 1)    // PCM
	b = le.AppendUint16(b, 1)    // channels
	b = le.AppendUint32(b, rate) // sample rate
	b = le.AppendUint32(b, rate) // byte rate: rate * channels * 1 byte
	b = le.AppendUint16(b, 1)    // block align
	b = le.AppendUint16(b, 8)    // bits per sample
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(len(samples)))
	return append(b, samples...)
}

// mustBase64 decodes a constant; a bad constant is a programming error that
// fails the module's start, where AddTool's checks fail too.
func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic("conformance plugin: bad base64 constant: " + err.Error())
	}
	return b
}
